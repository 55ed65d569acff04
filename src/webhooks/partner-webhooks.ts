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
import { countPendingReplays, endPartnerRecoverAt, findPartnerRecoverUntil, takePartnerPing, takePartnerRecover } from './partner-limits-store.ts';
import { WebhooksError, type WebhooksContext } from './webhooks-service.ts';

/** Bounds of a rotation's overlap asked by a partner (hours), and its default. */
export const PARTNER_OVERLAP_HOURS = { default: 24, max: 168 } as const;
/** Recover replays at most this many events a second, and at most this many in one call. */
export const RECOVER_PER_SECOND = 10;
export const RECOVER_MAX_EVENTS = 10_000;
/** How much of a receiver's answer the partner sees per attempt. */
export const ANSWER_BYTES_SHOWN = 1024;
/**
 * Most replays of one partner waiting at once (its own and the operator's): one full recover's
 * worth. Each replay is a row in the shared outbox and a claim of the dispatcher, and a replay
 * of the same event can be asked again and again: without a cap a partner's secret alone could
 * grow the outbox without bound. Beyond it a replay or recover answers 429 until they are sent.
 */
export const MAX_PENDING_REPLAYS = RECOVER_MAX_EVENTS;
/** A partner pings at most once in this many seconds: each ping is an outbound request made at its word. */
export const PING_INTERVAL_SECONDS = 10;

/** The partner asks for more than its limits allow now; `retryAfterSeconds` when a wait will do. */
export class PartnerLimitReached extends WebhooksError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}
/** A recover of the partner is still running (its replays are being scheduled or are not all due yet). */
export class PartnerRecoverRunning extends PartnerLimitReached {}

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

export async function pingPartnerEndpoint(ctx: WebhooksContext, partnerId: string) {
  const now = ctx.clock.now();
  const taken = await takePartnerPing(ctx.db, partnerId, now.toISOString(), new Date(now.getTime() - PING_INTERVAL_SECONDS * 1000).toISOString());
  if (taken !== true) {
    const wait = Math.max(1, Math.ceil((Date.parse(taken) + PING_INTERVAL_SECONDS * 1000 - now.getTime()) / 1000));
    throw new PartnerLimitReached(`one ping every ${PING_INTERVAL_SECONDS} seconds: try again in ${wait} s`, wait);
  }
  return pingWebhookEndpoint(ctx, partnerId, 'partner');
}

/** Refuses `adding` more replays when the partner's waiting ones would pass MAX_PENDING_REPLAYS. */
async function requireRoomForReplays(ctx: WebhooksContext, partnerId: string, adding: number): Promise<void> {
  const waiting = await countPendingReplays(ctx.db, partnerId);
  if (waiting + adding > MAX_PENDING_REPLAYS) {
    throw new PartnerLimitReached(`${waiting} replays are still waiting to be sent and at most ${MAX_PENDING_REPLAYS} may wait; asking for ${adding} more: try again once they are sent`, undefined);
  }
}

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
  await requireRoomForReplays(ctx, partnerId, 1);
  const result = await replayWebhookEvents(ctx, { eventIds: [eventId], requestedBy: `partner:${partnerId}`, dryRun: false, by: 'partner' });
  return { event_id: eventId, delivery_id: result.replayed[0]!.delivery_id! };
}

/**
 * Replays every failed event created in [since, until] at RECOVER_PER_SECOND; the count. One
 * recover of a partner runs at a time, from the call until its last replay is due: a second is
 * refused (409) meanwhile, so recovers never add up past the bounded rate. A dry run only reads.
 */
export async function recoverPartnerEvents(ctx: WebhooksContext, partnerId: string, input: { since: string; until?: string | undefined; dry_run?: boolean | undefined }) {
  // Events of organizations that withdrew the partner are skipped, not refused: the rest of the window is still the partner's to recover.
  const filter = { ...parseEventFilter({ partner: partnerId, status: 'failed', since: input.since, until: input.until, limit: String(RECOVER_MAX_EVENTS) }), stillEnabled: true };
  const dryRun = input.dry_run ?? false;
  const taken = dryRun ? undefined : await takeRecover(ctx, partnerId);
  let endsAt: string | null = null;
  try {
    const matching = dryRun ? undefined : (await replayWebhookEvents(ctx, { filter, requestedBy: `partner:${partnerId}`, dryRun: true })).matched;
    if (matching !== undefined) await requireRoomForReplays(ctx, partnerId, matching);
    const result = await replayWebhookEvents(ctx, { filter, requestedBy: `partner:${partnerId}`, dryRun, by: 'partner', perSecond: RECOVER_PER_SECOND });
    endsAt = new Date(ctx.clock.now().getTime() + Math.ceil(result.matched / RECOVER_PER_SECOND) * 1000).toISOString();
    return { dry_run: result.dry_run, count: result.matched, per_second: RECOVER_PER_SECOND, event_ids: result.replayed.map((r) => r.event_id) };
  } finally {
    if (taken) await endPartnerRecoverAt(ctx.db, partnerId, taken, endsAt);
  }
}

/** The partner's recover, taken until the longest a recover can schedule; refused while another runs. */
async function takeRecover(ctx: WebhooksContext, partnerId: string): Promise<string> {
  const now = ctx.clock.now();
  const until = new Date(now.getTime() + (RECOVER_MAX_EVENTS / RECOVER_PER_SECOND) * 1000).toISOString();
  if (await takePartnerRecover(ctx.db, partnerId, now.toISOString(), until)) return until;
  const running = await findPartnerRecoverUntil(ctx.db, partnerId);
  const wait = running ? Math.max(1, Math.ceil((Date.parse(running) - now.getTime()) / 1000)) : 1;
  throw new PartnerRecoverRunning(`a recover of partner ${partnerId} is already running (its replays are due until ${running ?? 'soon'}); one recover runs at a time: try again in ${wait} s`, wait);
}
