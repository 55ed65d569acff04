// Queries of the webhooks' retention steps (webhook-retention.ts): events whose deliveries have
// all finished, with their deliveries and attempts (children first, in one transaction per
// batch); receivers' response bodies on old attempts; and the mark that lets a replay tell a
// pruned event from an unknown one.
import type { Kysely } from 'kysely';
import { holdsRowLocks } from '../platform/db/database.ts';
import type { Database } from '../platform/db/database-schema.ts';

type Db = Kysely<Database>;

/** The kind under which the highest pruned event id is kept in retention_marks. */
const EVENTS_MARK = 'webhook_events';

/** Events created before `before` none of whose deliveries is pending (waiting, leased or in flight). */
function finishedEventsBefore(db: Db, before: string) {
  return db
    .selectFrom('webhook_events as e')
    .where('e.created_at', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('webhook_deliveries as p').select('p.id').whereRef('p.event_id', '=', 'e.id').where('p.status', '=', 'pending'))),
    );
}

export interface WebhookHistoryCounts {
  webhook_events: number;
  webhook_deliveries: number;
  webhook_attempts: number;
}

/** What pruning events created before `before` would delete (a dry run). */
export async function countPrunableWebhookHistory(db: Db, before: string): Promise<WebhookHistoryCounts> {
  const events = finishedEventsBefore(db, before).select('e.id');
  const deliveries = db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', events);
  const [e, d, a] = await Promise.all([
    finishedEventsBefore(db, before).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('event_id', 'in', events).executeTakeFirstOrThrow(),
    db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<string>().as('n')).where('delivery_id', 'in', deliveries).executeTakeFirstOrThrow(),
  ]);
  return { webhook_events: Number(e.n), webhook_deliveries: Number(d.n), webhook_attempts: Number(a.n) };
}

/** Attempts started before `before` still holding a body, other than those of events pruning would delete anyway. */
export async function countResponseBodiesKept(db: Db, before: string, eventsBefore: string): Promise<number> {
  const prunedDeliveries = db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', finishedEventsBefore(db, eventsBefore).select('e.id'));
  const row = await db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('started_at', '<', before)
    .where('response_body', 'is not', null)
    .where('delivery_id', 'not in', prunedDeliveries)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface WebhookHistoryBatch extends WebhookHistoryCounts {
  /** Events this batch looked at (up to the limit): fewer means the backlog is done. */
  candidates: number;
}

/**
 * One batch, inside the caller's transaction: up to `limit` of the oldest finished events are
 * looked at, and as many of them are deleted, oldest first, as fit in `limit` rows counting
 * their deliveries and attempts (always at least one event, so an event replayed hundreds of
 * times still goes). On PostgreSQL the events are locked first (SKIP LOCKED: two instances
 * pruning at once take different events), so no replay can add a delivery to them meanwhile;
 * their deliveries are then read afresh, and an event that gained a pending one is kept.
 */
export async function pruneWebhookHistoryBatch(trx: Db, before: string, limit: number, now: string): Promise<WebhookHistoryBatch> {
  let candidates = finishedEventsBefore(trx, before).select('e.id').orderBy('e.created_at').orderBy('e.id').limit(limit);
  if (holdsRowLocks(trx)) candidates = candidates.forUpdate().skipLocked();
  const ids = (await candidates.execute()).map((row) => row.id);
  const done: WebhookHistoryBatch = { candidates: ids.length, webhook_events: 0, webhook_deliveries: 0, webhook_attempts: 0 };
  if (ids.length === 0) return done;
  const chosen = await chooseWithinRows(trx, ids, limit);
  if (chosen.events.length === 0) return done;
  if (chosen.deliveries.length > 0) {
    const attempts = await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', chosen.deliveries).executeTakeFirst();
    const deliveries = await trx.deleteFrom('webhook_deliveries').where('id', 'in', chosen.deliveries).executeTakeFirst();
    done.webhook_attempts = Number(attempts.numDeletedRows);
    done.webhook_deliveries = Number(deliveries.numDeletedRows);
  }
  const events = await trx.deleteFrom('webhook_events').where('id', 'in', chosen.events).executeTakeFirst();
  done.webhook_events = Number(events.numDeletedRows);
  await raiseEventsMark(trx, chosen.events.reduce((a, b) => (a > b ? a : b)), now);
  return done;
}

/** The events (in order) whose rows, with their deliveries and attempts, fit in `limit`; none with a pending delivery. */
async function chooseWithinRows(trx: Db, eventIds: string[], limit: number): Promise<{ events: string[]; deliveries: string[] }> {
  const rows = await trx
    .selectFrom('webhook_deliveries as d')
    .select(['d.id', 'd.event_id', 'd.status'])
    .select((eb) => eb.selectFrom('webhook_attempts as a').select(eb.fn.countAll<string>().as('n')).whereRef('a.delivery_id', '=', 'd.id').as('attempts'))
    .where('d.event_id', 'in', eventIds)
    .execute();
  const byEvent = new Map<string, typeof rows>();
  for (const row of rows) byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
  const chosen = { events: [] as string[], deliveries: [] as string[] };
  let used = 0;
  for (const eventId of eventIds) {
    const deliveries = byEvent.get(eventId) ?? [];
    if (deliveries.some((d) => d.status === 'pending')) continue;
    const cost = 1 + deliveries.length + deliveries.reduce((sum, d) => sum + Number(d.attempts ?? 0), 0);
    if (chosen.events.length > 0 && used + cost > limit) break;
    used += cost;
    chosen.events.push(eventId);
    chosen.deliveries.push(...deliveries.map((d) => d.id));
  }
  return chosen;
}

/** Keeps the highest event id ever pruned; two instances raising it at once leave the higher. */
async function raiseEventsMark(trx: Db, eventId: string, at: string): Promise<void> {
  await trx
    .insertInto('retention_marks')
    .values({ kind: EVENTS_MARK, pruned_through: eventId, updated_at: at })
    .onConflict((conflict) =>
      conflict
        .column('kind')
        .doUpdateSet((eb) => ({ pruned_through: eb.ref('excluded.pruned_through'), updated_at: eb.ref('excluded.updated_at') }))
        .where('retention_marks.pruned_through', '<', (eb) => eb.ref('excluded.pruned_through')),
    )
    .execute();
}

/** The highest event id pruned so far, if any was. */
export async function findEventsMark(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('retention_marks').select('pruned_through').where('kind', '=', EVENTS_MARK).executeTakeFirst();
  return row?.pruned_through;
}

/** Clears the receiver's response body of up to `limit` attempts started before `before`. */
export async function clearResponseBodiesBatch(trx: Db, before: string, limit: number): Promise<number> {
  const result = await trx
    .updateTable('webhook_attempts')
    .set({ response_body: null })
    .where('response_body', 'is not', null)
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('delivery_id', 'attempt_number'),
        'in',
        selectFrom('webhook_attempts').select(['delivery_id', 'attempt_number']).where('started_at', '<', before).where('response_body', 'is not', null).limit(limit).$asTuple('delivery_id', 'attempt_number'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
