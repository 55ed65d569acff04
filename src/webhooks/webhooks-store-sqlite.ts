// The webhooks store on SQLite: a claim and an outcome batch are each one transaction of
// several statements, which cost no round trips on the embedded database (the statements of
// PostgreSQL's single-statement forms would buy nothing here).
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { precompileQuery } from '../platform/db/precompiled-query.ts';
import { findWebhookEndpoint } from './webhook-endpoints-store.ts';
import { fencedKey, isClaimable, withdrawnColumnSql, type ClaimParameters, type ClaimedDeliveryWithBody, type FencedOutcomeRow, type WebhooksStore } from './webhooks-store.ts';

export const sqliteWebhooksStore: WebhooksStore = {
  claimEndpointDeliveries(db, claim, endpointOf) {
    return db.transaction().execute(async (trx) => {
      const row = await findWebhookEndpoint(trx, claim.partnerId);
      const endpoint = row && endpointOf(row);
      if (!endpoint) return { endpoint: undefined, claimed: [] };
      return { endpoint, claimed: await claimDueDeliveries(trx, claim) };
    });
  },

  recordAttemptsIfFenced(db, outcomes) {
    return db.transaction().execute((trx) => writeOutcomes(trx, outcomes));
  },
};

/** Outcomes per pair of statements: 8 and 10 parameters a row, at most 5,000, far below SQLite's 32,766. */
const OUTCOMES_PER_STATEMENT = 500;

/**
 * The batch's delivery updates as one statement and its attempt rows as another (per 500
 * outcomes), in the transaction given: two statements instead of two per outcome.
 * Exactly once, as with a statement per outcome: the update writes only the deliveries that
 * still carry the outcome's fencing token, an attempt row is inserted for exactly those, and
 * both run in the one transaction, under the writer's lock, so that set cannot change between
 * them (a claim from another connection or process waits for the lock), and a crash or a
 * failure leaves none of the batch written (the leases then expire and the deliveries are
 * claimed again, under a new token).
 */
async function writeOutcomes(trx: Kysely<Database>, rows: readonly FencedOutcomeRow[]): Promise<Set<string>> {
  const written = new Set<string>();
  for (let start = 0; start < rows.length; start += OUTCOMES_PER_STATEMENT) {
    const fenced = await updateDeliveriesIfFenced(trx, rows.slice(start, start + OUTCOMES_PER_STATEMENT));
    if (fenced.length === 0) continue;
    await trx.executeQuery(CompiledQuery.raw(attemptsInsertSql(fenced.length), attemptParameters(fenced)));
    for (const row of fenced) written.add(fencedKey(row.id, row.fencing_token));
  }
  return written;
}

const DELIVERY_COLUMNS = ['id', 'fencing_token', 'status', 'attempts_made', 'next_attempt_at', 'last_outcome', 'last_status_code', 'completed_at'] as const;
const ATTEMPT_COLUMNS = ['delivery_id', 'attempt_number', 'event_id', 'started_at', 'duration_ms', 'outcome', 'status_code', 'response_body', 'detail', 'sent_by', 'address_guarded'] as const;

const rowsOfPlaceholders = (rows: number, columns: number) => Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => '?').join(', ')})`).join(', ');

/** The statements' text for each number of rows (at most OUTCOMES_PER_STATEMENT of each). */
const updateSqls = new Map<number, string>();
const insertSqls = new Map<number, string>();

function deliveriesUpdateSql(rows: number): string {
  let text = updateSqls.get(rows);
  if (!text) {
    const assignments = DELIVERY_COLUMNS.slice(2).map((column) => `"${column}" = v.${column}`);
    text =
      `with v(${DELIVERY_COLUMNS.join(', ')}) as (values ${rowsOfPlaceholders(rows, DELIVERY_COLUMNS.length)}) ` +
      `update "webhook_deliveries" set ${assignments.join(', ')}, "lease_owner" = null, "lease_expires_at" = null ` +
      `from v where "webhook_deliveries"."id" = v.id and "webhook_deliveries"."fencing_token" = v.fencing_token`;
    updateSqls.set(rows, text);
  }
  return text;
}

function attemptsInsertSql(rows: number): string {
  let text = insertSqls.get(rows);
  if (!text) {
    text = `insert into "webhook_attempts" (${ATTEMPT_COLUMNS.map((column) => `"${column}"`).join(', ')}) values ${rowsOfPlaceholders(rows, ATTEMPT_COLUMNS.length)}`;
    insertSqls.set(rows, text);
  }
  return text;
}

/** The rows' values in DELIVERY_COLUMNS' order, in one flat list (no array per row). */
function deliveryParameters(rows: readonly FencedOutcomeRow[]): unknown[] {
  const values: unknown[] = [];
  for (const r of rows) values.push(r.id, r.fencing_token, r.status, r.attempts_made, r.next_attempt_at, r.last_outcome, r.last_status_code, r.completed_at);
  return values;
}

/** The rows' values in ATTEMPT_COLUMNS' order. */
function attemptParameters(rows: readonly FencedOutcomeRow[]): unknown[] {
  const values: unknown[] = [];
  for (const r of rows) values.push(r.id, r.attempt_number, r.event_id, r.started_at, r.duration_ms, r.outcome, r.status_code, r.response_body, r.detail, r.sent_by, r.address_guarded);
  return values;
}

/**
 * Ends the leases and writes the outcomes' effects on their deliveries, for those deliveries
 * only that still carry the outcome's fencing token; answers those outcomes. The others were
 * taken over by a later claim (their lease had expired) and must not be recorded. Usually all
 * were written, which the count of changed rows tells; otherwise the tokens read back tell
 * which: the update leaves tokens as they were and nothing else writes in this transaction,
 * so a delivery carries its outcome's token now exactly when the update wrote it.
 */
async function updateDeliveriesIfFenced(trx: Kysely<Database>, rows: readonly FencedOutcomeRow[]): Promise<readonly FencedOutcomeRow[]> {
  const result = await trx.executeQuery(CompiledQuery.raw(deliveriesUpdateSql(rows.length), deliveryParameters(rows)));
  if (Number(result.numAffectedRows) === rows.length) return rows;
  const current = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'fencing_token'])
    .where('id', 'in', rows.map((row) => row.id))
    .execute();
  const tokens = new Map(current.map((row) => [row.id, Number(row.fencing_token)]));
  return rows.filter((row) => tokens.get(row.id) === row.fencing_token);
}

/**
 * SQLite: leases up to `limit` of one endpoint's due deliveries (pending, due, lease free or
 * expired), bumps their fencing tokens, and returns each with its event's columns. The statement
 * runs under the database's write lock, which orders concurrent claims, from this process or another.
 */
function claimDueDeliveries(db: Kysely<Database>, p: ClaimParameters): Promise<ClaimedDeliveryWithBody[]> {
  return Promise.resolve(claimDue(db, p));
}

/**
 * One of the claimed delivery's event columns, read in the claim's RETURNING (a subquery per
 * column: SQLite's RETURNING cannot join). One statement instead of the claim and a read of the
 * events by id built per claim: 31-33 → 19-23 µs per claimed delivery in SQLite and the merge (29 Nov).
 */
const eventColumn = (expression: ReturnType<typeof sql>) => sql`(select ${expression} from "webhook_events" as "e" where "e"."id" = "webhook_deliveries"."event_id")`;

// Precompiled: it runs on every claim, which would otherwise build and compile it with Kysely each time.
const claimDue = precompileQuery<ClaimParameters, ClaimedDeliveryWithBody>((db, param) =>
  db
    .with(
      (cte) => cte('picked').materialized(),
      (db) =>
        db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('partner_id', '=', param('partnerId'))
          .where(isClaimable(param('now')))
          .orderBy('next_attempt_at')
          .limit(param('limit')),
    )
    .updateTable('webhook_deliveries')
    .set((eb) => ({ lease_owner: param('leaseOwner'), lease_expires_at: param('leaseExpiresAt'), fencing_token: eb('fencing_token', '+', 1) }))
    .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
    // Checked again on the row being updated: whatever the pick saw, a delivery someone else
    // has just leased is not taken (PostgreSQL re-reads the newest version of a row it waited for).
    .where(isClaimable(param('now')))
    .returning([
      'id',
      'event_id',
      'attempts_made',
      'fencing_token',
      'reason',
      'created_at',
      eventColumn(sql.ref('e.body')).$castTo<string>().as('body'),
      eventColumn(sql.ref('e.event_type')).$castTo<string>().as('event_type'),
      eventColumn(sql.ref('e.traceparent')).$castTo<string | null>().as('traceparent'),
      eventColumn(withdrawnColumnSql('e')).$castTo<number>().as('withdrawn'),
    ]),
);
