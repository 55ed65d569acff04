// Leasing and fencing of PDS submissions, on the platform's delivery toolkit (claimDueJobs,
// recordJobOutcomeIfFenced, leaseDurationMs): a claim takes due jobs under a lease and bumps
// each one's fencing token; an outcome is written only while the job still carries the token it
// was claimed with. One addition of its own: a create claims its own new job by id (its first
// attempt, which the create waits for), under the same lease columns and the same rule.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { claimDueJobs, leaseDurationMs, recordJobOutcomeIfFenced } from '../platform/delivery/index.ts';
import type { PdsSubmissionOutcome, PdsSubmissionRow } from './pds-submission-store.ts';

export { leaseDurationMs as submissionLeaseMs };

export interface SubmissionClaim {
  now: string;
  owner: string;
  leaseExpiresAt: string;
  limit: number;
  /** Only this job (a create's own first attempt). */
  id?: string;
}

/** Leases due submissions (pending, due, lease free or expired), each with its fencing token bumped; with `id`, only that one. */
export async function claimDueSubmissions(db: Kysely<Database>, claim: SubmissionClaim): Promise<PdsSubmissionRow[]> {
  if (claim.id === undefined) return claimDueJobs(db, 'pds_submissions', claim);
  const row = await db
    .updateTable('pds_submissions')
    .set((eb) => ({ lease_owner: claim.owner, lease_expires_at: claim.leaseExpiresAt, fencing_token: eb('fencing_token', '+', 1) }))
    .where('id', '=', claim.id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', claim.now)]))
    .returningAll()
    .executeTakeFirst();
  return row ? [row] : [];
}

/** Writes the outcome and ends the lease only if the job still carries `fencingToken`; false if a later claim took it. */
export function recordSubmissionOutcomeIfFenced(trx: Kysely<Database>, id: string, fencingToken: number, outcome: PdsSubmissionOutcome): Promise<boolean> {
  return recordJobOutcomeIfFenced(trx, 'pds_submissions', id, fencingToken, outcome);
}
