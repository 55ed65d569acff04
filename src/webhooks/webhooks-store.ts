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

/** A delivery as claimed under one fencing token. */
export const fencedKey = (deliveryId: string, fencingToken: number) => `${deliveryId} ${fencingToken}`;

export type FencedOutcomeRow = DeliveryOutcomeUpdate & { id: string; fencing_token: number } & Omit<AttemptRow, 'delivery_id'>;

/**
 * PostgreSQL: recordAttemptIfFenced for many outcomes as one statement, one round trip. The
 * outcomes arrive as one array per column (so the statement's text is the same for any
 * number). Returns the fencedKey of each delivery whose fencing token was still current: only
 * theirs were written, each update with its attempt row (a data-modifying WITH: atomic).
 */
export async function recordAttemptsIfFenced(db: Kysely<Database>, outcomes: readonly FencedOutcomeRow[]): Promise<Set<string>> {
  const column = <K extends keyof FencedOutcomeRow>(key: K) => outcomes.map((outcome) => outcome[key]);
  const { rows } = await sql<{ id: string; fencing_token: number }>`
    with v as (
      select * from unnest(
        ${column('id')}::text[], ${column('fencing_token')}::integer[], ${column('status')}::text[],
        ${column('attempts_made')}::integer[], ${column('next_attempt_at')}::text[], ${column('last_outcome')}::text[],
        ${column('last_status_code')}::integer[], ${column('completed_at')}::text[], ${column('attempt_number')}::integer[],
        ${column('event_id')}::text[], ${column('started_at')}::text[], ${column('duration_ms')}::integer[],
        ${column('outcome')}::text[], ${column('status_code')}::integer[], ${column('response_body')}::text[],
        ${column('detail')}::text[], ${column('sent_by')}::text[]
      ) as v(id, fencing_token, status, attempts_made, next_attempt_at, last_outcome, last_status_code, completed_at,
             attempt_number, event_id, started_at, duration_ms, outcome, status_code, response_body, detail, sent_by)
    ),
    updated as (
      update webhook_deliveries d
      set status = v.status, attempts_made = v.attempts_made, next_attempt_at = v.next_attempt_at,
          last_outcome = v.last_outcome, last_status_code = v.last_status_code, completed_at = v.completed_at,
          lease_owner = null, lease_expires_at = null
      from v
      where d.id = v.id and d.fencing_token = v.fencing_token
      returning d.id, d.fencing_token
    ),
    inserted as (
      insert into webhook_attempts (delivery_id, attempt_number, event_id, started_at, duration_ms, outcome, status_code, response_body, detail, sent_by)
      select v.id, v.attempt_number, v.event_id, v.started_at, v.duration_ms, v.outcome, v.status_code, v.response_body, v.detail, v.sent_by
      from v join updated on updated.id = v.id and updated.fencing_token = v.fencing_token
    )
    select id, fencing_token from updated`.execute(db);
  return new Set(rows.map((row) => fencedKey(row.id, Number(row.fencing_token))));
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
