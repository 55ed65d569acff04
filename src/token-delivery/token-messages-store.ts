// Queries of the token-message outbox. Each takes the database or an open transaction first.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, TokenMessagesTable } from '../platform/db/database-schema.ts';

export type TokenMessageRow = Selectable<TokenMessagesTable>;

export async function insertTokenMessages(db: Kysely<Database>, rows: readonly Insertable<TokenMessagesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('token_messages').values([...rows]).execute();
}

/**
 * Leases up to `limit` due messages to `owner` until `leaseExpiresAt`, bumping each one's
 * fencing token, in one transaction: a message is claimed by one runner at a time.
 */
export async function claimDueTokenMessages(db: Kysely<Database>, claim: { now: string; limit: number; owner: string; leaseExpiresAt: string }): Promise<TokenMessageRow[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('token_messages')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', claim.now)
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', claim.now)]))
      .orderBy('next_attempt_at')
      .limit(claim.limit)
      .execute();
    const claimed: TokenMessageRow[] = [];
    for (const { id } of due) {
      const row = await trx
        .updateTable('token_messages')
        .set((eb) => ({ lease_owner: claim.owner, lease_expires_at: claim.leaseExpiresAt, fencing_token: eb('fencing_token', '+', 1) }))
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', claim.now)]))
        .returningAll()
        .executeTakeFirst();
      if (row) claimed.push(row);
    }
    return claimed;
  });
}

export type TokenMessageOutcome = Pick<TokenMessageRow, 'status' | 'attempts_made' | 'next_attempt_at' | 'last_error' | 'provider_id' | 'completed_at'>;

/** Writes an attempt's outcome only if the message still carries the claim's fencing token; false if a later claim took it over. */
export async function recordTokenMessageOutcome(db: Kysely<Database>, id: string, fencingToken: number, outcome: TokenMessageOutcome): Promise<boolean> {
  const result = await db
    .updateTable('token_messages')
    .set({ ...outcome, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('fencing_token', '=', fencingToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface TokenMessageFilter {
  status?: string;
  prescriptionId?: string;
  limit: number;
}

export async function findTokenMessages(db: Kysely<Database>, filter: TokenMessageFilter): Promise<TokenMessageRow[]> {
  let query = db.selectFrom('token_messages').selectAll();
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.prescriptionId) query = query.where('prescription_id', '=', filter.prescriptionId);
  return query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).execute();
}

/** The latest message of each of these prescriptions. */
export async function findLatestTokenMessage(db: Kysely<Database>, prescriptionId: string): Promise<TokenMessageRow | undefined> {
  return db.selectFrom('token_messages').selectAll().where('prescription_id', '=', prescriptionId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}
