// What operators see and do after the fact: events and the state of their latest delivery,
// every attempt of an event, and replay. A replay is a new delivery of the same event (same
// body, so the same event_id; a fresh signature per attempt; the spec's 3 attempts again),
// recorded with who asked and when. Replaying an event twice delivers it twice.
import { auditRecords, type AuditDetail } from '../audit/index.ts';
import { findPrunedEventIds } from './webhook-retention.ts';
import { newDeliveryId } from './webhook-events.ts';
import { findWebhookEndpoint } from './webhook-endpoints-store.ts';
import { findEvents, listAttemptsOfEvent, listDeliveriesOfEvent, listEventsWithLatestDelivery, type EventWithLatestDelivery } from './webhook-history-store.ts';
import { webhookOutbox } from './webhook-outbox.ts';
import { webhookAction, WebhooksError, type WebhookActor, type WebhooksContext } from './webhooks-service.ts';

export { DELIVERY_STATUSES, type DeliveryStatus } from '../platform/db/stored-values.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../platform/db/stored-values.ts';

/** As the CLI passes them: every field optional text. */
export interface EventFilterInput {
  partner?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | undefined;
}

export interface EventFilter {
  partnerId: string | undefined;
  status: DeliveryStatus | undefined;
  eventType: string | undefined;
  since: string | undefined;
  until: string | undefined;
  limit: number | undefined;
  /** Only events whose organization still enables their partner (the partner's own recover). */
  stillEnabled?: boolean | undefined;
}

const MAX_LIMIT = 1_000_000;

/** Checks an operator's filter; each mistake is a WebhooksError naming the flag. */
export function parseEventFilter(input: EventFilterInput): EventFilter {
  if (input.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(input.status)) {
    throw new WebhooksError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}, got "${input.status}"`);
  }
  const since = parseTime('--since', input.since);
  const until = parseTime('--until', input.until);
  if (since && until && since > until) throw new WebhooksError('--since must not be after --until');
  let limit: number | undefined;
  if (input.limit !== undefined) {
    limit = Number(input.limit);
    if (!/^\d+$/.test(input.limit) || limit < 1 || limit > MAX_LIMIT) throw new WebhooksError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got "${input.limit}"`);
  }
  return { partnerId: input.partner, status: input.status as DeliveryStatus | undefined, eventType: input.type, since, until, limit };
}

/** An ISO-8601 date or date-time, as the stored ISO text it is compared with. */
function parseTime(flag: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? new Date(text) : new Date(NaN);
  if (Number.isNaN(time.getTime())) throw new WebhooksError(`${flag} must be an ISO-8601 date or date-time such as 2026-11-24T09:00:00Z, got "${text}"`);
  return time.toISOString();
}

const DEFAULT_LIST_LIMIT = 100;

export interface EventSummary {
  event_id: string;
  event_type: string;
  partner_id: string;
  organization_id: string;
  created_at: string;
  status: string;
  attempts: number;
  last_outcome: string | null;
  last_status_code: number | null;
  finished_at: string | null;
}

async function requirePartnerIfNamed(ctx: WebhooksContext, partnerId: string | undefined): Promise<void> {
  if (partnerId !== undefined && !(await findWebhookEndpoint(ctx.db, partnerId))) throw new WebhooksError(`partner ${partnerId} not found`);
}

/** Newest first, 100 unless a limit is given. */
export async function listWebhookEvents(ctx: WebhooksContext, filter: EventFilter): Promise<EventSummary[]> {
  await requirePartnerIfNamed(ctx, filter.partnerId);
  const rows = await listEventsWithLatestDelivery(ctx.db, { ...filter, limit: filter.limit ?? DEFAULT_LIST_LIMIT, order: 'newest first' });
  await ctx.audit.noteAccess({ action: 'webhook.history_read', detail: { count: rows.length, ...(filter.partnerId ? { partnerId: filter.partnerId } : {}) } });
  return rows.map(summarizeEvent);
}

/** An event as the operator's list and the partner's list show it. */
export function summarizeEvent(row: EventWithLatestDelivery): EventSummary {
  return {
    event_id: row.id,
    event_type: row.event_type,
    partner_id: row.partner_id,
    organization_id: row.organization_id,
    created_at: row.created_at,
    status: row.status,
    attempts: Number(row.attempts_made),
    last_outcome: row.last_outcome,
    last_status_code: row.last_status_code,
    finished_at: row.delivered_or_failed_at,
  };
}

/** Every delivery of the event (its own, then each replay) with its attempts, in order. */
export async function listWebhookAttempts(ctx: WebhooksContext, eventId: string) {
  const [event] = await findEvents(ctx.db, [eventId]);
  if (!event) {
    const pruned = (await findPrunedEventIds(ctx, [eventId])).length > 0;
    throw new WebhooksError(pruned ? `event ${eventId} was pruned by retention (older than the webhook history kept)` : `event ${eventId} not found`);
  }
  const deliveries = await listDeliveriesOfEvent(ctx.db, eventId);
  const attempts = await listAttemptsOfEvent(ctx.db, eventId);
  await ctx.audit.noteAccess({ action: 'webhook.history_read', detail: { subjectId: eventId, count: attempts.length, partnerId: event.partner_id } });
  return {
    event_id: eventId,
    event_type: event.event_type,
    partner_id: event.partner_id,
    deliveries: deliveries.map((d) => ({
      delivery_id: d.id,
      reason: d.reason,
      requested_by: d.requested_by,
      requested_at: d.created_at,
      status: d.status,
      next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
      ended_because: d.ended_because,
      attempts: attempts.filter((a) => a.delivery_id === d.id).map(({ delivery_id: _, ...attempt }) => attempt),
    })),
  };
}

export interface ReplayRequest {
  /** Replay these events... */
  eventIds?: string[];
  /** ...or the events of one partner matching a filter (partner and status required). */
  filter?: EventFilter;
  requestedBy: string;
  dryRun: boolean;
  /** Who asks: the operator (CLI) or the partner itself (/v1/partner/). */
  by?: WebhookActor;
  /** At most this many replays per second (recover); unbounded when absent. */
  perSecond?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ReplayResult {
  dry_run: boolean;
  requested_by: string;
  matched: number;
  replayed: Array<{ event_id: string; delivery_id: string | null }>;
}

/** Deliveries are inserted this many per transaction, with progress after each. */
const REPLAY_BATCH = 500;

export async function replayWebhookEvents(ctx: WebhooksContext, request: ReplayRequest): Promise<ReplayResult> {
  const events = await selectEventsToReplay(ctx, request);
  const result: ReplayResult = { dry_run: request.dryRun, requested_by: request.requestedBy, matched: events.length, replayed: [] };
  if (request.dryRun) {
    result.replayed = events.map((e) => ({ event_id: e.id, delivery_id: null }));
    return result;
  }
  for (let start = 0; start < events.length; start += REPLAY_BATCH) {
    const batch = events.slice(start, start + REPLAY_BATCH);
    const nowMs = ctx.clock.now().getTime();
    const now = new Date(nowMs).toISOString();
    // A bounded rate: the i-th replay is due i / perSecond seconds from now (the dispatcher sends nothing early).
    const dueAt = (i: number) => (request.perSecond ? new Date(nowMs + Math.floor((start + i) / request.perSecond) * 1000).toISOString() : now);
    const rows = batch.map((e, i) => ({ id: newDeliveryId(), event_id: e.id, partner_id: e.partner_id, reason: 'replay' as const, requested_by: request.requestedBy, status: 'pending' as const, next_attempt_at: dueAt(i), created_at: now }));
    await ctx.unitOfWork.run(async ({ record }) => {
      for (const delivery of rows) record(webhookOutbox, { delivery });
      record(auditRecords, { action: webhookAction(request.by ?? 'operator', 'webhook_replay'), detail: replayDetail(rows) });
    });
    result.replayed.push(...rows.map((row) => ({ event_id: row.event_id, delivery_id: row.id })));
    request.onProgress?.(result.replayed.length, events.length);
  }
  return result;
}

/** One entry per batch: how many events, the event when there is one, the partner when it is one. */
function replayDetail(rows: ReadonlyArray<{ event_id: string; partner_id: string }>): AuditDetail {
  const partners = new Set(rows.map((row) => row.partner_id));
  return {
    count: rows.length,
    ...(rows.length === 1 ? { subjectId: rows[0]!.event_id } : {}),
    ...(partners.size === 1 ? { partnerId: rows[0]!.partner_id } : {}),
  };
}

async function selectEventsToReplay(ctx: WebhooksContext, request: ReplayRequest): Promise<Array<{ id: string; partner_id: string }>> {
  if (request.eventIds && request.filter) throw new WebhooksError('give event ids or --partner with --status, not both');
  if (request.eventIds && request.eventIds.length > 0) {
    const ids = [...new Set(request.eventIds)];
    const found = await findEvents(ctx.db, ids);
    const missing = ids.filter((id) => !found.some((e) => e.id === id));
    if (missing.length > 0) throw await absentEventsError(ctx, missing);
    return ids.map((id) => found.find((e) => e.id === id)!);
  }
  const filter = request.filter;
  if (!filter?.partnerId || !filter.status) throw new WebhooksError('replay needs event ids, or --partner and --status to choose events');
  if (filter.status === 'pending') throw new WebhooksError('--status pending: those events are still being delivered; replay failed or delivered ones');
  await requirePartnerIfNamed(ctx, filter.partnerId);
  return listEventsWithLatestDelivery(ctx.db, { ...filter, limit: filter.limit ?? MAX_LIMIT, order: 'oldest first' });
}

/** Events that are not stored: those retention pruned said apart from those never known. */
async function absentEventsError(ctx: WebhooksContext, absent: string[]): Promise<WebhooksError> {
  const pruned = await findPrunedEventIds(ctx, absent);
  const unknown = absent.filter((id) => !pruned.includes(id));
  const plural = (ids: string[]) => (ids.length > 1 ? 's' : '');
  const parts = [
    ...(pruned.length > 0 ? [`event${plural(pruned)} pruned by retention (older than the webhook history kept): ${pruned.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`event${plural(unknown)} not found: ${unknown.join(', ')}`] : []),
  ];
  return new WebhooksError(`${parts.join('; ')}; nothing was replayed`);
}
