// The webhooks store on PostgreSQL: the claim (with its endpoint's read) and the outcome batch
// are one statement each, one round trip (measured: the dispatcher's throughput there is
// bounded by its round trips).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import type { WebhookEndpointRow } from './webhook-endpoints-store.ts';
import { fencedKey, releaseDeliveryLeases, withdrawnColumnSql, type ClaimParameters, type ClaimedDeliveryWithBody, type FencedOutcomeRow, type WebhooksStore } from './webhooks-store.ts';

export const postgresWebhooksStore: WebhooksStore = {
  async claimEndpointDeliveries(db, claim, endpointOf) {
    const rows = await claimWithEndpoint(db, claim);
    const claimed = rows.flatMap(claimedOf);
    let endpoint;
    try {
      endpoint = rows[0] && endpointOf(endpointRowOf(rows[0]));
    } finally {
      // The statement's test of the endpoint is deliveryEndpointOf's: they cannot disagree, but
      // if they ever did (or the secret cannot be decrypted), nothing stays leased for nothing.
      if (!endpoint && claimed.length > 0) await releaseDeliveryLeases(db, claimed.map((row) => ({ id: row.id, fencingToken: Number(row.fencing_token) })));
    }
    return endpoint ? { endpoint, claimed } : { endpoint: undefined, claimed: [] };
  },

  recordAttemptsIfFenced: recordAttemptsInOneStatement,
};

type ClaimRow = { [K in keyof WebhookEndpointRow as `endpoint_${K}`]: WebhookEndpointRow[K] } & { [K in keyof ClaimedDeliveryWithBody]: ClaimedDeliveryWithBody[K] | null };

function endpointRowOf(row: ClaimRow): WebhookEndpointRow {
  return {
    id: row.endpoint_id,
    webhook_url: row.endpoint_webhook_url,
    webhook_enabled: row.endpoint_webhook_enabled,
    webhook_secret_encrypted: row.endpoint_webhook_secret_encrypted,
    webhook_secret_issued_at: row.endpoint_webhook_secret_issued_at,
    webhook_previous_secret_encrypted: row.endpoint_webhook_previous_secret_encrypted,
    webhook_previous_secret_expires_at: row.endpoint_webhook_previous_secret_expires_at,
    webhook_pending_url: row.endpoint_webhook_pending_url,
    webhook_pending_url_at: row.endpoint_webhook_pending_url_at,
  };
}

function claimedOf(row: ClaimRow): ClaimedDeliveryWithBody[] {
  if (row.id === null) return [];
  const { id, event_id, attempts_made, fencing_token, reason, created_at, body, event_type, traceparent, withdrawn } = row;
  return [{ id, event_id: event_id!, attempts_made: attempts_made!, fencing_token: fencing_token!, reason: reason!, created_at: created_at!, body: body!, event_type: event_type!, traceparent, withdrawn: Number(withdrawn) }];
}

/**
 * The partner's endpoint and the claim (as on SQLite), with each event's body joined in, as
 * one statement: one round trip, its own transaction. Deliveries are claimed only when the
 * endpoint can receive them now, tested as deliveryEndpointOf tests it (enabled, with a URL
 * and a secret), on the same snapshot the claim reads, as the endpoint read just before the
 * claim used to. The rows are picked FOR UPDATE SKIP LOCKED, so concurrent claimers take
 * disjoint sets without waiting; the pick is materialized so that it runs once. One row per
 * claimed delivery, each carrying the endpoint; a single row without a delivery when none was
 * claimed; no row when the partner does not exist.
 */
async function claimWithEndpoint(db: Kysely<Database>, p: ClaimParameters): Promise<ClaimRow[]> {
  const claimable = sql`status = 'pending' and next_attempt_at <= ${p.now} and (lease_expires_at is null or lease_expires_at <= ${p.now})`;
  const { rows } = await sql<ClaimRow>`
    with endpoint as (
      select id, webhook_url, webhook_enabled, webhook_secret_encrypted, webhook_secret_issued_at,
             webhook_previous_secret_encrypted, webhook_previous_secret_expires_at, webhook_pending_url, webhook_pending_url_at
      from partners where id = ${p.partnerId}
    ),
    picked as materialized (
      select id from webhook_deliveries
      where partner_id = ${p.partnerId} and ${claimable}
        and exists (select 1 from endpoint where webhook_enabled = 1 and coalesce(webhook_url, '') <> '' and coalesce(webhook_secret_encrypted, '') <> '')
      order by next_attempt_at limit ${p.limit} for update skip locked
    ),
    claimed as (
      update webhook_deliveries
      set lease_owner = ${p.leaseOwner}, lease_expires_at = ${p.leaseExpiresAt}, fencing_token = fencing_token + 1
      where id in (select id from picked)
        -- Checked again on the row being updated: PostgreSQL re-reads the newest version of a
        -- row it waited for, and a delivery someone else has just leased is not taken.
        and ${claimable}
      returning id, event_id, attempts_made, fencing_token, reason, created_at
    )
    select n.id as endpoint_id, n.webhook_url as endpoint_webhook_url, n.webhook_enabled as endpoint_webhook_enabled,
           n.webhook_secret_encrypted as endpoint_webhook_secret_encrypted, n.webhook_secret_issued_at as endpoint_webhook_secret_issued_at,
           n.webhook_previous_secret_encrypted as endpoint_webhook_previous_secret_encrypted,
           n.webhook_previous_secret_expires_at as endpoint_webhook_previous_secret_expires_at,
           n.webhook_pending_url as endpoint_webhook_pending_url, n.webhook_pending_url_at as endpoint_webhook_pending_url_at,
           c.id, c.event_id, c.attempts_made, c.fencing_token, c.reason, c.created_at, e.body, e.event_type, e.traceparent,
           ${withdrawnColumnSql('e')} as withdrawn
    from endpoint n
    left join (claimed c join webhook_events e on e.id = c.event_id) on true`.execute(db);
  return rows;
}

/**
 * Every outcome of a batch as one statement, one round trip. The outcomes arrive as one JSON
 * parameter (so the statement's text is the same for any number): pg writes an array parameter
 * element by element in JavaScript, 18 arrays a batch, about twice JSON.stringify's time for the
 * same rows (29 Nov). Returns the fencedKey of each delivery whose fencing token was still
 * current: only theirs were written, each update with its attempt row (a data-modifying WITH: atomic).
 */
async function recordAttemptsInOneStatement(db: Kysely<Database>, outcomes: readonly FencedOutcomeRow[]): Promise<Set<string>> {
  const { rows } = await sql<{ id: string; fencing_token: number }>`
    with v as (
      select * from json_to_recordset(${JSON.stringify(outcomes)}::json)
        as v(id text, fencing_token integer, status text, attempts_made integer, next_attempt_at text, last_outcome text,
             last_status_code integer, completed_at text, attempt_number integer, event_id text, started_at text, duration_ms integer,
             outcome text, status_code integer, response_body text, detail text, sent_by text, address_guarded integer)
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
      insert into webhook_attempts (delivery_id, attempt_number, event_id, started_at, duration_ms, outcome, status_code, response_body, detail, sent_by, address_guarded)
      select v.id, v.attempt_number, v.event_id, v.started_at, v.duration_ms, v.outcome, v.status_code, v.response_body, v.detail, v.sent_by, v.address_guarded
      from v join updated on updated.id = v.id and updated.fencing_token = v.fencing_token
    )
    select id, fencing_token from updated`.execute(db);
  return new Set(rows.map((row) => fencedKey(row.id, Number(row.fencing_token))));
}
