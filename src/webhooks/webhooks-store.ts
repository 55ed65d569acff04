// Queries of the webhook outbox and its deliveries: what recordEvent writes and what the
// dispatcher claims, reads and records. Each takes the database or an open transaction first.
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import { precompileQuery } from '../platform/db/precompiled-query.ts';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEventsTable } from '../platform/db/database-schema.ts';

export async function insertWebhookEvent(db: Kysely<Database>, row: Insertable<WebhookEventsTable>): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}

export async function insertWebhookDeliveries(db: Kysely<Database>, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export interface ClaimedDeliveryRow {
  id: string;
  event_id: string;
  attempts_made: number;
  fencing_token: number;
}

export interface ClaimParameters {
  partnerId: string;
  now: string;
  limit: number;
  leaseOwner: string;
  leaseExpiresAt: string;
}

/**
 * SQLite: leases up to `limit` of one endpoint's due deliveries (pending, due, lease free or
 * expired) and bumps their fencing tokens. The statement runs under the database's write lock,
 * which orders concurrent claims, from this process or another.
 */
export async function claimDueDeliveries(db: Kysely<Database>, p: ClaimParameters): Promise<ClaimedDeliveryRow[]> {
  return db
    .with(
      (cte) => cte('picked').materialized(),
      (db) => db.selectFrom('webhook_deliveries').select('id').where('partner_id', '=', p.partnerId).where(isClaimable(p.now)).orderBy('next_attempt_at').limit(p.limit),
    )
    .updateTable('webhook_deliveries')
    .set((eb) => ({ lease_owner: p.leaseOwner, lease_expires_at: p.leaseExpiresAt, fencing_token: eb('fencing_token', '+', 1) }))
    .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
    // Checked again on the row being updated: whatever the pick saw, a delivery someone else
    // has just leased is not taken (PostgreSQL re-reads the newest version of a row it waited for).
    .where(isClaimable(p.now))
    .returning(['id', 'event_id', 'attempts_made', 'fencing_token'])
    .execute();
}

export interface ClaimedDeliveryWithBody extends ClaimedDeliveryRow {
  body: string;
}

/**
 * PostgreSQL: the same claim, with each event's body joined in, as one statement (one round
 * trip, its own transaction). The rows are picked FOR UPDATE SKIP LOCKED, so concurrent
 * claimers take disjoint sets without waiting; the pick is materialized so that it runs once.
 */
export async function claimDueDeliveriesWithBodies(db: Kysely<Database>, p: ClaimParameters): Promise<ClaimedDeliveryWithBody[]> {
  return db
    .with(
      (cte) => cte('picked').materialized(),
      (db) => db.selectFrom('webhook_deliveries').select('id').where('partner_id', '=', p.partnerId).where(isClaimable(p.now)).orderBy('next_attempt_at').limit(p.limit).forUpdate().skipLocked(),
    )
    .with('claimed', (db) =>
      db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ lease_owner: p.leaseOwner, lease_expires_at: p.leaseExpiresAt, fencing_token: eb('fencing_token', '+', 1) }))
        .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
        .where(isClaimable(p.now))
        .returning(['id', 'event_id', 'attempts_made', 'fencing_token']),
    )
    .selectFrom('claimed')
    .innerJoin('webhook_events as e', 'e.id', 'claimed.event_id')
    .select(['claimed.id', 'claimed.event_id', 'claimed.attempts_made', 'claimed.fencing_token', 'e.body'])
    .execute();
}

/** Pending, due, and not leased (or its lease has expired). */
function isClaimable(now: string) {
  return (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
    eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now), eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)])]);
}

export async function findEventBodies(db: Kysely<Database>, eventIds: readonly string[]): Promise<Array<{ id: string; body: string }>> {
  if (eventIds.length === 0) return [];
  return db.selectFrom('webhook_events').select(['id', 'body']).where('id', 'in', eventIds).execute();
}

/** The partners with a delivery that is due and not leased, whose endpoint can receive it now. */
export async function findPartnersWithDueDeliveries(db: Kysely<Database>, now: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('partners as p', 'p.id', 'd.partner_id')
    .select('d.partner_id')
    .distinct()
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_expires_at', 'is', null), eb('d.lease_expires_at', '<=', now)]))
    .where('p.webhook_enabled', '=', 1)
    .where('p.webhook_url', 'is not', null)
    .where('p.webhook_secret_encrypted', 'is not', null)
    .execute();
  return rows.map((row) => row.partner_id);
}

export type DeliveryOutcomeUpdate = {
  status: string;
  attempts_made: number;
  next_attempt_at: string;
  last_outcome: string;
  last_status_code: number | null;
  completed_at: string | null;
};

// Precompiled: they run once per attempt, and building a Kysely query costs more than running it.
const updateFencedDelivery = precompileQuery<DeliveryOutcomeUpdate & { id: string; fencing_token: number }, { id: string }>((db, param) =>
  db
    .updateTable('webhook_deliveries')
    .set({
      status: param('status'),
      attempts_made: param('attempts_made'),
      next_attempt_at: param('next_attempt_at'),
      last_outcome: param('last_outcome'),
      last_status_code: param('last_status_code'),
      completed_at: param('completed_at'),
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('id', '=', param('id'))
    .where('fencing_token', '=', param('fencing_token'))
    .returning('id'),
);

/**
 * Writes an attempt's effect on its delivery and ends the lease, only if the delivery still
 * carries the fencing token of the claim the attempt was made under. False: a later claim took
 * the delivery over (this lease had expired), and this outcome must not be recorded.
 */
export async function updateDeliveryIfFenced(
  db: Kysely<Database>,
  deliveryId: string,
  fencingToken: number,
  update: DeliveryOutcomeUpdate,
): Promise<boolean> {
  const rows = await updateFencedDelivery(db, { ...update, id: deliveryId, fencing_token: fencingToken });
  return rows.length === 1;
}

export type AttemptRow = Selectable<WebhookAttemptsTable>;

const insertAttemptRow = precompileQuery<AttemptRow, never>((db, param) =>
  db.insertInto('webhook_attempts').values({
    delivery_id: param('delivery_id'),
    attempt_number: param('attempt_number'),
    event_id: param('event_id'),
    started_at: param('started_at'),
    duration_ms: param('duration_ms'),
    outcome: param('outcome'),
    status_code: param('status_code'),
    response_body: param('response_body'),
    detail: param('detail'),
    sent_by: param('sent_by'),
  }),
);

export async function insertWebhookAttempt(db: Kysely<Database>, row: AttemptRow): Promise<void> {
  await insertAttemptRow(db, row);
}

type FencedOutcome = DeliveryOutcomeUpdate & { id: string; fencing_token: number } & Omit<AttemptRow, 'delivery_id'>;

// The attempt's values reach the INSERT through a SELECT, where PostgreSQL cannot tell their
// types from a column: each says its own.
const recordFencedOutcome = precompileQuery<FencedOutcome, { delivery_id: string }>((db, param) =>
  db
    .with('updated', (db) =>
      db
        .updateTable('webhook_deliveries')
        .set({
          status: param('status'),
          attempts_made: param('attempts_made'),
          next_attempt_at: param('next_attempt_at'),
          last_outcome: param('last_outcome'),
          last_status_code: param('last_status_code'),
          completed_at: param('completed_at'),
          lease_owner: null,
          lease_expires_at: null,
        })
        .where('id', '=', param('id'))
        .where('fencing_token', '=', param('fencing_token'))
        .returning('id'),
    )
    .insertInto('webhook_attempts')
    .columns(['delivery_id', 'attempt_number', 'event_id', 'started_at', 'duration_ms', 'outcome', 'status_code', 'response_body', 'detail', 'sent_by'])
    .expression((eb) =>
      eb
        .selectFrom('updated')
        .select([
          'updated.id',
          sql<number>`cast(${param('attempt_number')} as integer)`.as('attempt_number'),
          sql<string>`cast(${param('event_id')} as text)`.as('event_id'),
          sql<string>`cast(${param('started_at')} as text)`.as('started_at'),
          sql<number>`cast(${param('duration_ms')} as integer)`.as('duration_ms'),
          sql<string>`cast(${param('outcome')} as text)`.as('outcome'),
          sql<number | null>`cast(${param('status_code')} as integer)`.as('status_code'),
          sql<string | null>`cast(${param('response_body')} as text)`.as('response_body'),
          sql<string | null>`cast(${param('detail')} as text)`.as('detail'),
          sql<string>`cast(${param('sent_by')} as text)`.as('sent_by'),
        ]),
    )
    .returning('delivery_id'),
);

/**
 * PostgreSQL: updateDeliveryIfFenced and insertWebhookAttempt as one statement (a
 * data-modifying WITH: atomic, one round trip). False when the fencing token was stale: then
 * neither is written.
 */
export async function recordAttemptIfFenced(db: Kysely<Database>, deliveryId: string, fencingToken: number, update: DeliveryOutcomeUpdate, attempt: AttemptRow): Promise<boolean> {
  const { delivery_id: _, ...values } = attempt;
  const rows = await recordFencedOutcome(db, { ...update, ...values, id: deliveryId, fencing_token: fencingToken });
  return rows.length === 1;
}

/** Ends leases that were never used (claimed, not attempted), unless a later claim holds the delivery already. */
export async function releaseDeliveryLeases(db: Kysely<Database>, leases: ReadonlyArray<{ id: string; fencingToken: number }>): Promise<void> {
  for (const lease of leases) {
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('id', '=', lease.id)
      .where('fencing_token', '=', lease.fencingToken)
      .execute();
  }
}
