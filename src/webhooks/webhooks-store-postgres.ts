// The webhooks store on PostgreSQL: the claim and the outcome batch are one statement each, one
// round trip (measured: the dispatcher's throughput there is bounded by its round trips).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { findWebhookEndpoint } from './webhook-endpoints-store.ts';
import { fencedKey, isClaimable, type ClaimParameters, type ClaimedDeliveryWithBody, type FencedOutcomeRow, type WebhooksStore } from './webhooks-store.ts';

export const postgresWebhooksStore: WebhooksStore = {
  async claimEndpointDeliveries(db, claim, endpointOf) {
    const row = await findWebhookEndpoint(db, claim.partnerId);
    const endpoint = row && endpointOf(row);
    if (!endpoint) return { endpoint: undefined, claimed: [] };
    return { endpoint, claimed: await claimDueDeliveriesWithBodies(db, claim) };
  },

  recordAttemptsIfFenced: recordAttemptsInOneStatement,
};

/**
 * The claim (as on SQLite), with each event's body joined in, as one statement (one round
 * trip, its own transaction). The rows are picked FOR UPDATE SKIP LOCKED, so concurrent
 * claimers take disjoint sets without waiting; the pick is materialized so that it runs once.
 */
async function claimDueDeliveriesWithBodies(db: Kysely<Database>, p: ClaimParameters): Promise<ClaimedDeliveryWithBody[]> {
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
        .returning(['id', 'event_id', 'attempts_made', 'fencing_token', 'reason', 'created_at']),
    )
    .selectFrom('claimed')
    .innerJoin('webhook_events as e', 'e.id', 'claimed.event_id')
    .select(['claimed.id', 'claimed.event_id', 'claimed.attempts_made', 'claimed.fencing_token', 'claimed.reason', 'claimed.created_at', 'e.body', 'e.event_type', 'e.traceparent'])
    .execute();
}

/**
 * Every outcome of a batch as one statement, one round trip. The
 * outcomes arrive as one array per column (so the statement's text is the same for any
 * number). Returns the fencedKey of each delivery whose fencing token was still current: only
 * theirs were written, each update with its attempt row (a data-modifying WITH: atomic).
 */
async function recordAttemptsInOneStatement(db: Kysely<Database>, outcomes: readonly FencedOutcomeRow[]): Promise<Set<string>> {
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
