// Old records written straight into the tables, as years of traffic would have left them:
// retention tests and the prune benchmark need backlogs no test could make through the API in
// time. Ids follow the service's shapes (event and delivery ids begin with their time).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/platform/db/database-schema.ts';

type Db = Kysely<Database>;

const timeOrdered = (prefix: string, at: Date) => `${prefix}_${at.getTime().toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`;

export interface HistoryShape {
  partnerId: string;
  organizationId: string;
  createdAt: Date;
  /** Of each event's own delivery. */
  status?: 'delivered' | 'failed' | 'pending';
  attemptsPerDelivery?: number;
  /** Each attempt's response body (null: none). */
  responseBody?: string | null;
  /** When each attempt started (default: the event's time). */
  attemptedAt?: Date;
}

/** How many rows go in one INSERT: well under either database's limit on bound values. */
const CHUNK = 400;

/** `count` events, each with one delivery and its attempts. Returns the event ids, oldest first. */
export async function insertWebhookHistory(db: Db, count: number, shape: HistoryShape): Promise<string[]> {
  const { status = 'delivered', attemptsPerDelivery = 1, responseBody = 'ok' } = shape;
  const at = shape.createdAt.toISOString();
  const ids: string[] = [];
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    const events = Array.from({ length: size }, () => ({
      id: timeOrdered('evt', shape.createdAt),
      event_type: 'prescription.created',
      partner_id: shape.partnerId,
      organization_id: shape.organizationId,
      body: '{"event_type":"prescription.created"}',
      created_at: at,
    }));
    const deliveries = events.map((event) => ({
      id: timeOrdered('dlv', shape.createdAt),
      event_id: event.id,
      partner_id: shape.partnerId,
      reason: 'event' as const,
      status,
      attempts_made: attemptsPerDelivery,
      next_attempt_at: at,
      created_at: at,
      completed_at: status === 'pending' ? null : at,
    }));
    const attempts = deliveries.flatMap((delivery) =>
      Array.from({ length: attemptsPerDelivery }, (_, i) => ({
        delivery_id: delivery.id,
        attempt_number: i + 1,
        event_id: delivery.event_id,
        started_at: (shape.attemptedAt ?? shape.createdAt).toISOString(),
        duration_ms: 12,
        outcome: status === 'delivered' && i === attemptsPerDelivery - 1 ? ('success' as const) : ('http_5xx' as const),
        status_code: 200,
        response_body: responseBody,
        sent_by: 'seeded',
      })),
    );
    // One transaction per chunk, as the outbox writes an event with its delivery: a prune running
    // meanwhile (the server's hourly one, in the benchmark) never sees an event without it.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('webhook_events').values(events).execute();
      await trx.insertInto('webhook_deliveries').values(deliveries).execute();
      for (let a = 0; a < attempts.length; a += CHUNK) await trx.insertInto('webhook_attempts').values(attempts.slice(a, a + CHUNK)).execute();
    });
    ids.push(...events.map((e) => e.id));
  }
  return ids;
}

/** Another delivery of a stored event (a replay), with one attempt. */
export async function insertReplayDelivery(db: Db, eventId: string, partnerId: string, at: Date, status: 'pending' | 'delivered'): Promise<void> {
  const id = timeOrdered('dlv', at);
  await db
    .insertInto('webhook_deliveries')
    .values({ id, event_id: eventId, partner_id: partnerId, reason: 'replay', requested_by: 'ops', status, next_attempt_at: at.toISOString(), created_at: at.toISOString() })
    .execute();
}

export async function countRows(db: Db, table: 'webhook_events' | 'webhook_deliveries' | 'webhook_attempts' | 'idempotency_keys' | 'sso_tokens' | 'portal_sessions' | 'portal_form_ids'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** `count` idempotency keys of one partner and organization, all expiring at `expiresAt`. */
export async function insertIdempotencyKeys(db: Db, count: number, owner: { partnerId: string; organizationId: string }, expiresAt: Date): Promise<void> {
  const created = new Date(expiresAt.getTime() - 86_400_000).toISOString();
  const rows = Array.from({ length: count }, () => ({
    partner_id: owner.partnerId,
    organization_id: owner.organizationId,
    idempotency_key: randomBytes(12).toString('hex'),
    fingerprint: 'f',
    state: 'done' as const,
    response_status: 201,
    response_body: '{}',
    created_at: created,
    locked_until: created,
    expires_at: expiresAt.toISOString(),
  }));
  for (let start = 0; start < rows.length; start += CHUNK) await db.insertInto('idempotency_keys').values(rows.slice(start, start + CHUNK)).execute();
}
