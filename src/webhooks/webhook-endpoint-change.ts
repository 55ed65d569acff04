// A partner's change of its own webhook URL (issue 38 item 5). With the partner secret alone
// anyone could otherwise send every organization's events elsewhere at once, unseen. So the
// change waits ERX_ENDPOINT_CHANGE_DELAY_MINUTES (60 in production, none in sandbox), deliveries
// keep going to the URL being left meanwhile, that URL is told at once by a signed
// `webhook.endpoint_changed` (its owner can ask the operator to undo the change), and an
// operator can let it take effect earlier (`erx webhooks confirm-endpoint`). The operator's own
// `erx webhooks set-endpoint` takes effect at once and drops any waiting change.
import { auditRecords } from '../audit/index.ts';
import { signingEndpointAt } from './webhook-deliveries.ts';
import { checkWebhookUrl, setWebhookEndpoint } from './webhook-endpoints.ts';
import { effectiveUrlOf, findWebhookEndpoint, pendingChangeOf, updateWebhookEndpoint, type WebhookEndpointRow } from './webhook-endpoints-store.ts';
import { ENDPOINT_CHANGED_EVENT_TYPE } from './webhook-events.ts';
import { webhookOutbox } from './webhook-outbox.ts';
import { sendSignedNotice } from './webhook-ping.ts';
import { WebhooksError, type WebhooksContext } from './webhooks-service.ts';

export interface PartnerEndpointSet {
  partner_id: string;
  webhook_url: string;
  previous_url: string | null;
  /** Only when this registration issued the partner's first secret. */
  webhook_secret: string | null;
  /** When deliveries start going to webhook_url (now, for a first registration or with no delay). */
  takes_effect_at: string;
  /** Whether the previous URL answered 2xx to its `webhook.endpoint_changed`; null when there was none to tell. */
  previous_url_notified: boolean | null;
}

/** PUT /v1/partner/webhook-endpoint: a first registration at once; a change after the delay, the previous URL told now. */
export async function changePartnerEndpoint(ctx: WebhooksContext, partnerId: string, url: string): Promise<PartnerEndpointSet> {
  const before = await findWebhookEndpoint(ctx.db, partnerId);
  if (!before) throw new WebhooksError(`partner ${partnerId} not found`);
  if (before.webhook_url === null || before.webhook_secret_encrypted === null) {
    const set = await setWebhookEndpoint(ctx, partnerId, url, 'partner');
    return { ...set, takes_effect_at: ctx.clock.now().toISOString(), previous_url_notified: null };
  }
  const checked = await checkWebhookUrl(ctx, url);
  const change = await ctx.unitOfWork.run(async ({ trx, record }) => {
    const row = (await findWebhookEndpoint(trx, partnerId))!;
    const now = ctx.clock.now();
    const current = effectiveUrlOf(row, now)!;
    // Asking for the URL in use drops a waiting change; with no delay the change is immediate.
    const waits = checked !== current && ctx.settings.endpointChangeDelayMs > 0;
    const takesEffectAt = waits ? new Date(now.getTime() + ctx.settings.endpointChangeDelayMs).toISOString() : now.toISOString();
    await updateWebhookEndpoint(trx, partnerId, {
      webhook_url: waits ? current : checked,
      webhook_pending_url: waits ? checked : null,
      webhook_pending_url_at: waits ? takesEffectAt : null,
    });
    if (!waits) record(webhookOutbox, { wake: partnerId });
    record(auditRecords, { action: 'partner.webhook_endpoint_set', detail: { partnerId, ...(waits ? { reason: 'delayed' } : {}) } });
    return { row, current, takesEffectAt };
  });
  const notified = change.current === checked ? null : await notifyPreviousUrl(ctx, change.row, change.current, { new_url: checked, takes_effect_at: change.takesEffectAt });
  return { partner_id: partnerId, webhook_url: checked, previous_url: change.current, webhook_secret: null, takes_effect_at: change.takesEffectAt, previous_url_notified: notified };
}

/** Tells the URL being left, signed with the partner's secret(s) as deliveries are; whether it answered 2xx. Never throws: the change stands either way. */
async function notifyPreviousUrl(ctx: WebhooksContext, row: WebhookEndpointRow, previousUrl: string, data: { new_url: string; takes_effect_at: string }): Promise<boolean> {
  try {
    const { eventId, result } = await sendSignedNotice(ctx, signingEndpointAt(ctx, row, previousUrl), ENDPOINT_CHANGED_EVENT_TYPE, { previous_url: previousUrl, ...data });
    if (result.outcome !== 'success') ctx.logger.warn({ partnerId: row.id, eventId, outcome: result.outcome, statusCode: result.statusCode }, 'webhook.endpoint_changed notice not accepted by the previous URL');
    return result.outcome === 'success';
  } catch (error) {
    ctx.logger.warn({ err: error, partnerId: row.id }, 'webhook.endpoint_changed notice could not be sent');
    return false;
  }
}

export interface EndpointConfirmed {
  partner_id: string;
  webhook_url: string;
  previous_url: string | null;
  /** When the change would have taken effect without the confirmation. */
  was_due_at: string;
}

/** `erx webhooks confirm-endpoint <partner_id>`: the partner's waiting change of URL takes effect now. */
export async function confirmWebhookEndpoint(ctx: WebhooksContext, partnerId: string): Promise<EndpointConfirmed> {
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    const row = await findWebhookEndpoint(trx, partnerId);
    if (!row) throw new WebhooksError(`partner ${partnerId} not found`);
    const pending = pendingChangeOf(row, ctx.clock.now());
    if (!pending) throw new WebhooksError(`partner ${partnerId} has no change of webhook URL waiting (its URL is ${effectiveUrlOf(row, ctx.clock.now()) ?? 'not registered'})`);
    await updateWebhookEndpoint(trx, partnerId, { webhook_url: pending.url, webhook_pending_url: null, webhook_pending_url_at: null });
    record(webhookOutbox, { wake: partnerId });
    record(auditRecords, { action: 'admin.webhook_endpoint_confirm', detail: { partnerId } });
    return { partner_id: partnerId, webhook_url: pending.url, previous_url: row.webhook_url, was_due_at: pending.takes_effect_at };
  });
}
