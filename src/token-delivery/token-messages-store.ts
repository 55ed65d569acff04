// Queries of the token-message outbox. Each takes the database or an open transaction first.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, TokenMessagesTable } from '../platform/db/database-schema.ts';
import { claimDueJobs, recordJobOutcomeIfFenced, type JobClaim } from '../platform/delivery/index.ts';

export type TokenMessageRow = Selectable<TokenMessagesTable>;

export async function insertTokenMessages(db: Kysely<Database>, rows: readonly Insertable<TokenMessagesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('token_messages').values([...rows]).execute();
}

/** Leases up to `limit` due messages to `owner` (the toolkit's claim: one runner at a time, fencing token bumped). */
export function claimDueTokenMessages(db: Kysely<Database>, claim: JobClaim): Promise<TokenMessageRow[]> {
  return claimDueJobs(db, 'token_messages', claim);
}

export type TokenMessageOutcome = Pick<TokenMessageRow, 'status' | 'attempts_made' | 'next_attempt_at' | 'last_error' | 'provider_id' | 'completed_at'>;

/** Writes an attempt's outcome only if the message still carries the claim's fencing token; false if a later claim took it over. */
export function recordTokenMessageOutcome(db: Kysely<Database>, id: string, fencingToken: number, outcome: TokenMessageOutcome): Promise<boolean> {
  return recordJobOutcomeIfFenced(db, 'token_messages', id, fencingToken, outcome);
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
