// Leasing and fencing, for every durable job after a commit. A runner claims due rows under a
// lease (an owner and an expiry) and bumps each row's fencing token; it makes the attempt with
// no transaction open; it writes the outcome only if the row still carries the token it
// claimed with. A runner that dies or hangs past its lease loses the row to the next claim,
// and its late outcome is refused. The arithmetic is here once; the generic claim and fenced
// write serve any table with the lease columns (LeasedJobColumns). Webhook deliveries keep
// their own per-database claim (one statement on PostgreSQL, measured) on the same arithmetic.
import type { Kysely, Selectable, Updateable } from 'kysely';
import { holdsRowLocks } from '../db/database.ts';
import type { Database } from '../db/database-schema.ts';

/**
 * A lease covers a short wait in a runner's queue (at most about one attempt), the attempt
 * itself (the timeout), and this margin to write the outcome. An attempt starts only with at
 * least a timeout plus this margin of lease left.
 */
export const LEASE_MARGIN_MS = 5_000;

/** How long a claim holds a job whose attempt may take `timeoutMs`. */
export function leaseDurationMs(timeoutMs: number): number {
  return 2 * timeoutMs + LEASE_MARGIN_MS;
}

/** Whether enough of a lease ending at `leaseExpiresAt` (epoch ms) is left at `now` to attempt and record. */
export function hasLeaseForAttempt(leaseExpiresAt: number, now: number, timeoutMs: number): boolean {
  return leaseExpiresAt - now >= timeoutMs + LEASE_MARGIN_MS;
}

/** The columns a leased job table has (token_messages; a PDS submission table has the same). */
export interface LeasedJobColumns {
  id: string;
  status: string;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  fencing_token: number;
  attempts_made: number;
}

/** The tables whose rows are leased jobs. */
export type LeasedJobTable = { [T in keyof Database]: Database[T] extends { id: unknown; next_attempt_at: unknown; lease_owner: unknown; lease_expires_at: unknown; fencing_token: unknown } ? T : never }[keyof Database];

export interface JobClaim {
  now: string;
  limit: number;
  owner: string;
  leaseExpiresAt: string;
}

// Kysely cannot type a query over a table named by a type parameter; the shape is held by LeasedJobTable.
type AnyDb = Kysely<any>;

/**
 * Leases up to `limit` of the table's due jobs (`pending`, due, lease free or expired) to
 * `owner`, bumping each one's fencing token, in one transaction. On PostgreSQL the pick skips
 * rows another claimer has locked; everywhere the update checks the lease again on the row it
 * changes, so a job is claimed by one runner at a time.
 */
export async function claimDueJobs<T extends LeasedJobTable>(db: Kysely<Database>, table: T, claim: JobClaim): Promise<Array<Selectable<Database[T]>>> {
  return db.transaction().execute(async (trx) => {
    const any = trx as unknown as AnyDb;
    const name: string = table;
    const claimable = (eb: any) => eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', claim.now), eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', claim.now)])]);
    let pick = any.selectFrom(name).select('id').where(claimable).orderBy('next_attempt_at').limit(claim.limit);
    if (holdsRowLocks(trx)) pick = pick.forUpdate().skipLocked();
    const due: Array<{ id: string }> = await pick.execute();
    const claimed: Array<Selectable<Database[T]>> = [];
    for (const { id } of due) {
      const row = await any
        .updateTable(name)
        .set((eb: any) => ({ lease_owner: claim.owner, lease_expires_at: claim.leaseExpiresAt, fencing_token: eb('fencing_token', '+', 1) }))
        .where('id', '=', id)
        .where(claimable)
        .returningAll()
        .executeTakeFirst();
      if (row) claimed.push(row as Selectable<Database[T]>);
    }
    return claimed;
  });
}

/**
 * Writes an attempt's outcome (and ends the lease) only if the job still carries the claim's
 * fencing token; false if a later claim took it over. Runs in the transaction given, so the
 * caller can commit an audit entry with it.
 */
export async function recordJobOutcomeIfFenced<T extends LeasedJobTable>(db: Kysely<Database>, table: T, id: string, fencingToken: number, outcome: Updateable<Database[T]>): Promise<boolean> {
  const result = await (db as unknown as AnyDb)
    .updateTable(table as string)
    .set({ ...outcome, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('fencing_token', '=', fencingToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends leases that were never used (claimed, not attempted), unless a later claim holds the job already: it is due again at once. */
export async function releaseJobLeases(db: Kysely<Database>, table: LeasedJobTable, leases: ReadonlyArray<{ id: string; fencingToken: number }>): Promise<void> {
  for (const lease of leases) {
    await (db as unknown as AnyDb)
      .updateTable(table as string)
      .set({ lease_owner: null, lease_expires_at: null })
      .where('id', '=', lease.id)
      .where('fencing_token', '=', lease.fencingToken)
      .execute();
  }
}
