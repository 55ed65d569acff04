// Leasing and fencing of PDS submissions: a claim takes due jobs under a lease (owner and
// expiry) and bumps each one's fencing token; an outcome is written only while the job still
// carries the token it was claimed with, so a runner that died or hung past its lease can
// never overwrite a later one's outcome. This is the one module to swap for the platform's
// delivery toolkit (src/platform/delivery/: claimDueJobs, recordJobOutcomeIfFenced), whose
// columns and arithmetic it already follows.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { holdsRowLocks } from '../platform/db/database.ts';
import type { PdsSubmissionOutcome, PdsSubmissionRow } from './pds-submission-store.ts';

/** A lease covers the attempt (the PDS timeout), twice, and a margin to write the outcome. */
export function submissionLeaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

export interface SubmissionClaim {
  now: string;
  owner: string;
  leaseExpiresAt: string;
  limit: number;
  /** Only this job (a create's own first attempt). */
  id?: string;
}

/** Leases up to `limit` due submissions (pending, due, lease free or expired), each with its fencing token bumped. */
export async function claimDueSubmissions(db: Kysely<Database>, claim: SubmissionClaim): Promise<PdsSubmissionRow[]> {
  return db.transaction().execute(async (trx) => {
    const claimable = <Q extends { where: (...args: any[]) => Q }>(query: Q): Q =>
      query
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', claim.now)
        .where((eb: any) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', claim.now)]));
    let pick = claimable(trx.selectFrom('pds_submissions').select('id')).orderBy('next_attempt_at').limit(claim.limit);
    if (claim.id !== undefined) pick = pick.where('id', '=', claim.id);
    if (holdsRowLocks(trx)) pick = pick.forUpdate().skipLocked();
    const claimed: PdsSubmissionRow[] = [];
    for (const { id } of await pick.execute()) {
      const row = await claimable(trx.updateTable('pds_submissions'))
        .set((eb) => ({ lease_owner: claim.owner, lease_expires_at: claim.leaseExpiresAt, fencing_token: eb('fencing_token', '+', 1) }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (row) claimed.push(row);
    }
    return claimed;
  });
}

/** Writes the outcome and ends the lease only if the job still carries `fencingToken`; false if a later claim took it. */
export async function recordSubmissionOutcomeIfFenced(trx: Kysely<Database>, id: string, fencingToken: number, outcome: PdsSubmissionOutcome): Promise<boolean> {
  const result = await trx
    .updateTable('pds_submissions')
    .set({ ...outcome, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('fencing_token', '=', fencingToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
