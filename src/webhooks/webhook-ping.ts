// `erx webhooks ping`: one signed `webhook.ping` event, sent at once through the same client
// as deliveries (the SSRF guard in production included), so an operator checks a new endpoint
// in one command. It is neither stored nor retried: the operator reads the answer. The notice of
// an endpoint change (webhook-endpoint-change.ts) goes out the same way.
import type { AttemptResult } from './webhook-http-attempt.ts';
import { eventMetadata, newEventId, PING_EVENT_TYPE } from './webhook-events.ts';
import { deliveryEndpointOf, openWebhookSender, signDelivery, type DeliveryEndpoint } from './webhook-deliveries.ts';
import { findWebhookEndpoint } from './webhook-endpoints-store.ts';
import { webhookAction, WebhooksError, type WebhookActor, type WebhooksContext } from './webhooks-service.ts';

export interface PingResult {
  partner_id: string;
  url: string;
  event_id: string;
  status_code: number | null;
  latency_ms: number;
  /** Whether the receiver answered 2xx. */
  ok: boolean;
  outcome: string;
  detail: string | null;
}

export async function pingWebhookEndpoint(ctx: WebhooksContext, partnerId: string, by: WebhookActor = 'operator'): Promise<PingResult> {
  const row = await findWebhookEndpoint(ctx.db, partnerId);
  if (!row) throw new WebhooksError(`partner ${partnerId} not found`);
  // A disabled endpoint can still be pinged: checking it is how an operator decides to enable it.
  const endpoint = deliveryEndpointOf(ctx, { ...row, webhook_enabled: 1 });
  if (!endpoint) throw new WebhooksError(`partner ${partnerId} has no webhook endpoint; register one with erx webhooks set-endpoint`);
  const { eventId, result } = await sendSignedNotice(ctx, endpoint, PING_EVENT_TYPE, {});
  // A ping changes nothing stored: noted as an access, written before the command answers.
  await ctx.audit.noteAccess({
    action: webhookAction(by, 'webhook_ping'),
    outcome: result.outcome === 'success' ? 'success' : 'error',
    detail: { partnerId, subjectId: eventId, ...(result.statusCode === null ? {} : { reason: `http_${result.statusCode}` }) },
  });
  return {
    partner_id: partnerId,
    url: endpoint.url,
    event_id: eventId,
    status_code: result.statusCode,
    latency_ms: result.durationMs,
    ok: result.outcome === 'success',
    outcome: result.outcome,
    detail: result.detail?.trim() || null,
  };
}

/** One signed envelope of `eventType`, sent now to `endpoint` as a delivery would be (same headers, same guard), neither stored nor retried. */
export async function sendSignedNotice(ctx: WebhooksContext, endpoint: DeliveryEndpoint, eventType: string, data: Record<string, unknown>): Promise<{ eventId: string; result: AttemptResult }> {
  const envelope = {
    event_type: eventType,
    event_id: newEventId(),
    timestamp: ctx.clock.now().toISOString(),
    partner_id: endpoint.partnerId,
    organization_id: null,
    data,
    metadata: eventMetadata(),
  };
  const body = JSON.stringify(envelope);
  const sender = openWebhookSender(ctx);
  try {
    const result = await sender.send({ url: endpoint.url, body, authHeaders: signDelivery(endpoint, envelope.event_id, body, ctx.clock), timeoutMs: ctx.settings.timeoutMs });
    return { eventId: envelope.event_id, result };
  } finally {
    await sender.close();
  }
}
