// The partner's own view of its webhooks (/v1/partner/): each function is what one route calls,
// built on the same service functions as the operator's CLI, limited to the calling partner
// (an event of another partner is "not found", as an unknown one is) and audited as the
// partner's own (partner.* actions, actor kind partner from the request's scope).
import { setSubscribedEventTypes } from './webhook-event-subscriptions.ts';
import { rotateWebhookSecret, showWebhookEndpoint } from './webhook-endpoints.ts';
import { changePartnerEndpoint } from './webhook-endpoint-change.ts';
import { listWebhookAttempts, parseEventFilter, replayWebhookEvents, summarizeEvent, type EventSummary } from './webhook-history.ts';
import { findEvents, isPartnerEnabledFor, listEventsWithLatestDelivery } from './webhook-history-store.ts';
import { pingWebhookEndpoint } from './webhook-ping.ts';
import { WebhooksError, type WebhooksContext } from './webhooks-service.ts';

/** Bounds of a rotation's overlap asked by a partner (hours), and its default. */
export const PARTNER_OVERLAP_HOURS = { default: 24, max: 168 } as const;
/** Recover replays at most this many events a second, and at most this many in one call. */
export const RECOVER_PER_SECOND = 10;
export const RECOVER_MAX_EVENTS = 10_000;
/** How much of a receiver's answer the partner sees per attempt. */
export const ANSWER_BYTES_SHOWN = 1024;

export class PartnerEventNotFound extends WebhooksError {}
/** The event is the partner's, but its organization no longer enables the partner (`erx org disable-partner`). */
export class PartnerWithdrawn extends WebhooksError {}

export const showPartnerEndpoint = (ctx: WebhooksContext, partnerId: string) => showWebhookEndpoint(ctx, partnerId);

export const setPartnerEndpoint = (ctx: WebhooksContext, partnerId: string, url: string) => changePartnerEndpoint(ctx, partnerId, url);

export const setPartnerEventTypes = (ctx: WebhooksContext, partnerId: string, types: readonly string[]) => setSubscribedEventTypes(ctx, partnerId, types, 'partner');

export function rotatePartnerSecret(ctx: WebhooksContext, partnerId: string, overlapHours: number = PARTNER_OVERLAP_HOURS.default) {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > PARTNER_OVERLAP_HOURS.max) {
    throw new WebhooksError(`overlap_hours must be a whole number from 0 to ${PARTNER_OVERLAP_HOURS.max}`);
  }
  return rotateWebhookSecret(ctx, partnerId, overlapHours * 3_600_000, 'partner');
}

export const pingPartnerEndpoint = (ctx: WebhooksContext, partnerId: string) => pingWebhookEndpoint(ctx, partnerId, 'partner');

export interface PartnerEventQuery {
  status?: string | undefined;
  event_type?: string | undefined;
  organization_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** 1 to 100, as the query string carries it. */
  limit?: string | undefined;
  cursor?: string | undefined;
}

const encodeCursor = (e: { created_at: string; event_id: string }) => Buffer.from(`${e.created_at}|${e.event_id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)) || !/^evt_[0-9a-f]{32}$/.test(id)) throw new WebhooksError('cursor is not one this API gave');
  return { createdAt, id };
}

/** Newest first, `limit` (default 50, at most 100) a page; `next_cursor` continues, null at the end. */
export async function listPartnerEvents(ctx: WebhooksContext, partnerId: string, q: PartnerEventQuery): Promise<{ events: EventSummary[]; next_cursor: string | null }> {
  const filter = parseEventFilter({ status: q.status, type: q.event_type, since: q.since, until: q.until });
  const limit = q.limit === undefined ? 50 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new WebhooksError('limit must be a whole number from 1 to 100');
  const rows = await listEventsWithLatestDelivery(ctx.db, {
    ...filter,
    partnerId,
    organizationId: q.organization_id?.toLowerCase(),
    // An organization that withdrew the partner is no longer the partner's to read (issue 38 item 5).
    stillEnabled: true,
    before: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    limit: limit + 1,
    order: 'newest first',
  });
  const events = rows.slice(0, limit).map(summarizeEvent);
  await ctx.audit.noteAccess({ action: 'webhook.history_read', organizationId: q.organization_id?.toLowerCase() ?? null, detail: { count: events.length, partnerId } });
  return { events, next_cursor: rows.length > limit ? encodeCursor(events[events.length - 1]!) : null };
}

/** The partner's own event of an organization that still enables it: another's is not found, a withdrawn one refused. */
async function requireOwnEvent(ctx: WebhooksContext, partnerId: string, eventId: string): Promise<void> {
  const [event] = await findEvents(ctx.db, [eventId]);
  if (!event || event.partner_id !== partnerId) throw new PartnerEventNotFound(`event ${eventId} not found`);
  if (!(await isPartnerEnabledFor(ctx.db, { organizationId: event.organization_id, partnerId }))) {
    throw new PartnerWithdrawn(`organization ${event.organization_id} no longer enables partner ${partnerId}: its events are not shown or replayed`);
  }
}

/** The event with every delivery and attempt: time, status code, duration, error, the answer's first bytes. */
export async function showPartnerEvent(ctx: WebhooksContext, partnerId: string, eventId: string) {
  await requireOwnEvent(ctx, partnerId, eventId);
  const history = await listWebhookAttempts(ctx, eventId);
  return {
    ...history,
    deliveries: history.deliveries.map((d) => ({
      ...d,
      // An operator's replay names the operator's user name: the partner is told only that an operator asked (issue 38 item 5).
      requested_by: d.requested_by === null || d.requested_by === `partner:${partnerId}` ? d.requested_by : 'operator',
      attempts: d.attempts.map((a) => ({
        attempt_number: a.attempt_number,
        started_at: a.started_at,
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        outcome: a.outcome,
        error: a.detail,
        // An unguarded attempt's answer may be an internal service's (a sandbox on loopback delivers anywhere).
        response_body: a.response_body === null || Number(a.address_guarded) !== 1 ? null : Buffer.from(a.response_body, 'utf8').subarray(0, ANSWER_BYTES_SHOWN).toString('utf8'),
      })),
    })),
  };
}

export async function replayPartnerEvent(ctx: WebhooksContext, partnerId: string, eventId: string) {
  await requireOwnEvent(ctx, partnerId, eventId);
  const result = await replayWebhookEvents(ctx, { eventIds: [eventId], requestedBy: `partner:${partnerId}`, dryRun: false, by: 'partner' });
  return { event_id: eventId, delivery_id: result.replayed[0]!.delivery_id! };
}

/** Replays every failed event created in [since, until] at RECOVER_PER_SECOND; the count. */
export async function recoverPartnerEvents(ctx: WebhooksContext, partnerId: string, input: { since: string; until?: string | undefined; dry_run?: boolean | undefined }) {
  // Events of organizations that withdrew the partner are skipped, not refused: the rest of the window is still the partner's to recover.
  const filter = { ...parseEventFilter({ partner: partnerId, status: 'failed', since: input.since, until: input.until, limit: String(RECOVER_MAX_EVENTS) }), stillEnabled: true };
  const result = await replayWebhookEvents(ctx, { filter, requestedBy: `partner:${partnerId}`, dryRun: input.dry_run ?? false, by: 'partner', perSecond: RECOVER_PER_SECOND });
  return { dry_run: result.dry_run, count: result.matched, per_second: RECOVER_PER_SECOND, event_ids: result.replayed.map((r) => r.event_id) };
}
