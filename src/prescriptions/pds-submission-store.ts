// Queries of the PDS submission jobs (migration 0060). The leasing is in pds-submission-lease.ts.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';

type PdsSubmissionsTable = Database['pds_submissions'];
export type PdsSubmissionRow = Selectable<PdsSubmissionsTable>;
export type PdsSubmissionOutcome = Updateable<PdsSubmissionsTable>;

export async function insertPdsSubmission(trx: Kysely<Database>, row: Insertable<PdsSubmissionsTable>): Promise<void> {
  await trx.insertInto('pds_submissions').values(row).execute();
}

export async function findPdsSubmission(db: Kysely<Database>, id: string): Promise<PdsSubmissionRow | undefined> {
  return db.selectFrom('pds_submissions').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Withdraws a submission not yet settled and not being attempted (the prescriber chose paper):
 * false when it settled already or a claim's lease on it is live (an attempt in flight). The
 * fencing token is bumped, so an attempt whose lease ran out can no longer record its answer.
 */
export async function withdrawPdsSubmission(trx: Kysely<Database>, id: string, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('pds_submissions')
    .set((eb) => ({ status: 'withdrawn', completed_at: at, lease_owner: null, lease_expires_at: null, fencing_token: eb('fencing_token', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', at)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** When the earliest pending submission is due after `now`, if any (one due already but leased elsewhere is the poll's). */
export async function findNextSubmissionAttempt(db: Kysely<Database>, now: string): Promise<Date | undefined> {
  const row = await db.selectFrom('pds_submissions').select('next_attempt_at').where('status', '=', 'pending').where('next_attempt_at', '>', now).orderBy('next_attempt_at').limit(1).executeTakeFirst();
  return row ? new Date(row.next_attempt_at) : undefined;
}
