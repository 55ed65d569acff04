// The webhooks store on SQLite: a claim and an outcome batch are each one transaction of
// several statements, which cost no round trips on the embedded database (the statements of
// PostgreSQL's single-statement forms would buy nothing here).
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { precompileQuery } from '../platform/db/precompiled-query.ts';
import { findWebhookEndpoint } from './webhook-endpoints-store.ts';
import {
  fencedKey,
  findEventBodies,
  isClaimable,
  type AttemptRow,
  type ClaimParameters,
  type ClaimedDeliveryRow,
  type ClaimedEventColumns,
  type DeliveryOutcomeUpdate,
  type FencedOutcomeRow,
  type WebhooksStore,
} from './webhooks-store.ts';

export const sqliteWebhooksStore: WebhooksStore = {
  claimEndpointDeliveries(db, claim, endpointOf) {
    return db.transaction().execute(async (trx) => {
      const row = await findWebhookEndpoint(trx, claim.partnerId);
      const endpoint = row && endpointOf(row);
      if (!endpoint) return { endpoint: undefined, claimed: [] };
      const claimed = await claimDueDeliveries(trx, claim);
      const events = new Map((await findEventBodies(trx, [...new Set(claimed.map((row) => row.event_id))])).map((e) => [e.id, e]));
      return { endpoint, claimed: claimed.map((row) => ({ ...row, ...eventColumns(events.get(row.event_id)!) })) };
    });
  },

  recordAttemptsIfFenced(db, outcomes) {
    return db.transaction().execute((trx) => writeOutcomes(trx, outcomes));
  },
};

const eventColumns = ({ body, event_type, traceparent }: ClaimedEventColumns): ClaimedEventColumns => ({ body, event_type, traceparent });

/** Each outcome's update and attempt row, in the transaction given. */
async function writeOutcomes(trx: Kysely<Database>, rows: readonly FencedOutcomeRow[]): Promise<Set<string>> {
  const written = new Set<string>();
  for (const row of rows) {
    const { id, fencing_token, status, attempts_made, next_attempt_at, last_outcome, last_status_code, completed_at, ...attempt } = row;
    if (!(await updateDeliveryIfFenced(trx, id, fencing_token, { status, attempts_made, next_attempt_at, last_outcome, last_status_code, completed_at }))) continue;
    await insertWebhookAttempt(trx, { delivery_id: id, ...attempt });
    written.add(fencedKey(id, fencing_token));
  }
  return written;
}

/**
 * SQLite: leases up to `limit` of one endpoint's due deliveries (pending, due, lease free or
 * expired) and bumps their fencing tokens. The statement runs under the database's write lock,
 * which orders concurrent claims, from this process or another.
 */
async function claimDueDeliveries(db: Kysely<Database>, p: ClaimParameters): Promise<ClaimedDeliveryRow[]> {
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
    .returning(['id', 'event_id', 'attempts_made', 'fencing_token', 'reason', 'created_at'])
    .execute();
}

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
async function updateDeliveryIfFenced(
  db: Kysely<Database>,
  deliveryId: string,
  fencingToken: number,
  update: DeliveryOutcomeUpdate,
): Promise<boolean> {
  const rows = await updateFencedDelivery(db, { ...update, id: deliveryId, fencing_token: fencingToken });
  return rows.length === 1;
}

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

async function insertWebhookAttempt(db: Kysely<Database>, row: AttemptRow): Promise<void> {
  await insertAttemptRow(db, row);
}
