// Queries of the webhook outbox and its deliveries: what the outbox sink writes and what the
// dispatcher claims, reads and records. Each takes the database or an open transaction first.
// The dispatcher's claim and its outcome batch are written differently on each database, each
// its fastest way: WebhooksStore below, webhooks-store-sqlite.ts and webhooks-store-postgres.ts.
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DatabaseHandle } from '../platform/db/database.ts';
import { releaseJobLeases } from '../platform/delivery/index.ts';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEventsTable } from '../platform/db/database-schema.ts';
import type { WebhookEndpointRow } from './webhook-endpoints-store.ts';

/** Rows per INSERT: 500 deliveries are 6,500 parameters, far below either database's limit. */
const ROWS_PER_INSERT = 500;

export async function insertWebhookEvents(db: Kysely<Database>, rows: readonly Insertable<WebhookEventsTable>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await db.insertInto('webhook_events').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
  }
}

export async function insertWebhookDeliveries(db: Kysely<Database>, rows: readonly Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await db.insertInto('webhook_deliveries').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
  }
}

/**
 * The dispatcher's two hot writes, one implementation per database, chosen when the webhooks
 * context is made. Both take the database handle: each runs as its own transaction.
 */
export interface WebhooksStore {
  /**
   * Reads the partner's endpoint and, when `endpointOf` makes something of it (it can receive
   * now), leases up to `claim.limit` of the partner's due deliveries to `claim.leaseOwner`, each
   * with its event's body; nothing is claimed otherwise.
   */
  claimEndpointDeliveries<E>(
    db: DatabaseHandle,
    claim: ClaimParameters,
    endpointOf: (row: WebhookEndpointRow) => E | undefined,
  ): Promise<{ endpoint: E | undefined; claimed: ClaimedDeliveryWithBody[] }>;
  /**
   * Writes each outcome (its delivery's new state and the attempt row) only if the delivery
   * still carries the outcome's fencing token, all or none. Returns the fencedKey of each
   * written: the others were taken over by a later claim.
   */
  recordAttemptsIfFenced(db: DatabaseHandle, outcomes: readonly FencedOutcomeRow[]): Promise<Set<string>>;
}

export interface ClaimedDeliveryRow {
  id: string;
  event_id: string;
  attempts_made: number;
  fencing_token: number;
  /** With reason, what tells an event's first attempt and when its event committed (for metrics). */
  reason: string;
  created_at: string;
}

export type ClaimParameters = {
  partnerId: string;
  now: string;
  limit: number;
  leaseOwner: string;
  leaseExpiresAt: string;
};

export interface ClaimedDeliveryWithBody extends ClaimedDeliveryRow, ClaimedEventColumns {}

/** What an attempt needs of its event: the body it sends, and for its span the type and the committing request's traceparent. */
export interface ClaimedEventColumns {
  body: string;
  event_type: string;
  traceparent: string | null;
  /** 1 when the event's organization no longer enables the partner (`erx org disable-partner`): it is not sent. */
  withdrawn: number;
}

/**
 * 1 when the organization of the event `e` no longer enables its partner, else 0 (one primary
 * key lookup per claimed delivery, in the claim's own statement or transaction).
 */
export const withdrawnColumnSql = (event: string) =>
  sql<number>`case when exists (select 1 from organization_partners op where op.organization_id = ${sql.ref(`${event}.organization_id`)} and op.partner_id = ${sql.ref(`${event}.partner_id`)}) then 0 else 1 end`;

/** Pending, due, and not leased (or its lease has expired). */
export function isClaimable(now: string) {
  return (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
    eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now), eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)])]);
}

/**
 * The partners with a delivery that is due and not leased, whose endpoint can receive it now.
 * One probe per partner that stops at its first such delivery (the due index, in due order, past
 * the few its own dispatchers hold): reading every due delivery instead took 16-26 ms per poll
 * with 40,000 waiting, each second of a drain (BENCHMARKS.md, "Webhook delivery").
 */
export async function findPartnersWithDueDeliveries(db: Kysely<Database>, now: string): Promise<string[]> {
  const rows = await db
    .selectFrom('partners as p')
    .select('p.id as partner_id')
    .where('p.webhook_enabled', '=', 1)
    .where('p.webhook_url', 'is not', null)
    .where('p.webhook_secret_encrypted', 'is not', null)
    .where((eb) =>
      eb.exists(
        eb.selectFrom('webhook_deliveries').select(sql.lit(1).as('due')).whereRef('webhook_deliveries.partner_id', '=', 'p.id').where(isClaimable(now)),
      ),
    )
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

export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** A delivery as claimed under one fencing token. */
export const fencedKey = (deliveryId: string, fencingToken: number) => `${deliveryId} ${fencingToken}`;

export type FencedOutcomeRow = DeliveryOutcomeUpdate & { id: string; fencing_token: number } & Omit<AttemptRow, 'delivery_id'>;

/**
 * Ends claimed deliveries whose organization withdrew the partner, without an attempt: failed,
 * `ended_because` saying why, the lease given back; only those still under the claim's token.
 */
export async function endWithdrawnDeliveries(db: Kysely<Database>, leases: ReadonlyArray<{ id: string; fencingToken: number }>, now: string): Promise<void> {
  for (const lease of leases) {
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', ended_because: 'organization_withdrew_partner', completed_at: now, lease_owner: null, lease_expires_at: null })
      .where('id', '=', lease.id)
      .where('fencing_token', '=', lease.fencingToken)
      .execute();
  }
}

/** Ends leases that were never used (claimed, not attempted), unless a later claim holds the delivery already. */
export async function releaseDeliveryLeases(db: Kysely<Database>, leases: ReadonlyArray<{ id: string; fencingToken: number }>): Promise<void> {
  await releaseJobLeases(db, 'webhook_deliveries', leases);
}
