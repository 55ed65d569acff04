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
  status?: string | undefined;
  prescriptionId?: string | undefined;
  scid?: string | undefined;
  limit: number;
}

/** Messages with their prescription's SCID (null while Pending, or when the prescription is gone). */
export async function findTokenMessages(db: Kysely<Database>, filter: TokenMessageFilter): Promise<(TokenMessageRow & { scid: string | null })[]> {
  let query = db.selectFrom('token_messages as m').leftJoin('prescriptions as p', 'p.id', 'm.prescription_id').selectAll('m').select('p.scid');
  if (filter.status) query = query.where('m.status', '=', filter.status);
  if (filter.prescriptionId) query = query.where('m.prescription_id', '=', filter.prescriptionId);
  if (filter.scid) query = query.where('p.scid', '=', filter.scid);
  return query.orderBy('m.created_at', 'desc').orderBy('m.id').limit(filter.limit).execute();
}

/** The latest message of a prescription, with its SCID. */
export async function findLatestTokenMessage(db: Kysely<Database>, prescriptionId: string): Promise<(TokenMessageRow & { scid: string | null }) | undefined> {
  return db
    .selectFrom('token_messages as m')
    .leftJoin('prescriptions as p', 'p.id', 'm.prescription_id')
    .selectAll('m')
    .select('p.scid')
    .where('m.prescription_id', '=', prescriptionId)
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
