// The sandbox PDS: behaves as a PDS does, from its own table (pds_simulator_scripts, kept apart
// from erx's prescriptions as a real PDS's records are). It assigns SCIDs in the eRx format,
// one token per item, takes each unique id once (a second submission answers with the first
// SCID), counts a dispense's supplies and repeats, refuses a cancel after a dispense (a cease is
// allowed), and fails as the HI fixture file's patients say (pds-simulator-faults.ts).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { isUniqueViolation } from '../platform/db/database.ts';
import { refused, unreachable, type PdsDispensing, type PdsPort, type PdsResult, type PdsSandbox, type PdsSubmission } from './pds-port.ts';
import { newScid } from './pds-scid.ts';
import { findPdsFault, type PdsFaultPatient } from './pds-simulator-faults.ts';

type ScriptRow = Database['pds_simulator_scripts'];

export interface PdsSimulatorOptions {
  db: Kysely<Database>;
  /** The fixture patients whose `pds` entry makes their submissions fail. */
  patients: readonly PdsFaultPatient[];
  now: () => Date;
}

/** The refusal codes of the sandbox PDS (documented in docs/operators/pds.md). */
export const SIMULATOR_REFUSALS = {
  notFound: 'SCRIPT_NOT_FOUND',
  notActive: 'SCRIPT_NOT_ACTIVE',
  dispensed: 'SCRIPT_DISPENSED',
  noSupplyLeft: 'NO_SUPPLY_LEFT',
} as const;

const newToken = () => randomBytes(15).toString('base64url');

/** Never answers until the caller gives up (the timeout wrapper's signal). */
function hang(signal: AbortSignal | undefined): Promise<PdsResult<never>> {
  return new Promise((resolve) => {
    const answer = () => resolve(unreachable('timeout', 'the sandbox PDS did not answer (fixture "timeout")'));
    if (!signal) return;
    if (signal.aborted) answer();
    else signal.addEventListener('abort', answer, { once: true });
  });
}

function dispensingOf(row: ScriptRow): PdsDispensing {
  return {
    suppliesDispensed: row.supplies_dispensed,
    repeatsRemaining: Math.max(0, row.supplies_authorised - Math.max(1, row.supplies_dispensed)),
    lastDispensedAt: row.last_dispensed_at,
  };
}

export function createPdsSimulator(options: PdsSimulatorOptions): PdsPort & PdsSandbox {
  const { db } = options;
  const find = (scid: string) => db.selectFrom('pds_simulator_scripts').selectAll().where('scid', '=', scid).executeTakeFirst();
  const findByUniqueId = (uniqueId: string) => db.selectFrom('pds_simulator_scripts').selectAll().where('unique_id', '=', uniqueId).executeTakeFirst();
  const notFound = (scid: string) => refused(SIMULATOR_REFUSALS.notFound, `The PDS holds no script with SCID ${scid}`);
  const setStatus = (scid: string, status: string) => db.updateTable('pds_simulator_scripts').set({ status }).where('scid', '=', scid).execute();

  async function accept(submission: PdsSubmission): Promise<ScriptRow> {
    for (;;) {
      const held = await findByUniqueId(submission.uniqueId);
      if (held) return held;
      const row: ScriptRow = {
        scid: newScid(),
        unique_id: submission.uniqueId,
        status: 'active',
        supplies_authorised: 1 + submission.repeats,
        supplies_dispensed: 0,
        last_dispensed_at: null,
        tokens: JSON.stringify([newToken()]),
        content: JSON.stringify(submission.content),
        submitted_at: options.now().toISOString(),
      };
      try {
        await db.insertInto('pds_simulator_scripts').values(row).execute();
        return row;
      } catch (error) {
        // The same unique id taken meanwhile (read it next time round), or a SCID drawn twice.
        if (!isUniqueViolation(error)) throw error;
      }
    }
  }

  return {
    name: 'simulator',
    async submit(submission, signal) {
      const fault = findPdsFault(options.patients, submission);
      if (fault === 'timeout') return hang(signal);
      if (fault === 'unreachable') return unreachable('connection', 'the sandbox PDS is unreachable for this patient (fixture "unreachable")');
      if (fault) return refused(fault.refuse.code, fault.refuse.message);
      const row = await accept(submission);
      return { ok: true, scid: row.scid, tokens: JSON.parse(row.tokens) as string[] };
    },
    async cancel(scid) {
      const row = await find(scid);
      if (!row) return notFound(scid);
      if (row.status === 'cancelled') return { ok: true };
      if (row.status !== 'active') return refused(SIMULATOR_REFUSALS.notActive, `Script ${scid} is ${row.status}`);
      if (row.supplies_dispensed > 0) return refused(SIMULATOR_REFUSALS.dispensed, `Script ${scid} has been dispensed and cannot be cancelled; cease it instead`);
      await setStatus(scid, 'cancelled');
      return { ok: true };
    },
    async cease(scid) {
      const row = await find(scid);
      if (!row) return notFound(scid);
      if (row.status === 'ceased') return { ok: true };
      if (row.status !== 'active') return refused(SIMULATOR_REFUSALS.notActive, `Script ${scid} is ${row.status}`);
      await setStatus(scid, 'ceased');
      return { ok: true };
    },
    async resendToken(scid) {
      const row = await find(scid);
      if (!row) return notFound(scid);
      if (row.status !== 'active') return refused(SIMULATOR_REFUSALS.notActive, `Script ${scid} is ${row.status}: its token cannot be sent again`);
      return { ok: true, tokens: JSON.parse(row.tokens) as string[] };
    },
    async readDispensing(scid) {
      const row = await find(scid);
      return row ? { ok: true, ...dispensingOf(row) } : notFound(scid);
    },
    async dispense(scid, at) {
      const row = await find(scid);
      if (!row) return notFound(scid);
      if (row.status !== 'active') return refused(SIMULATOR_REFUSALS.notActive, `Script ${scid} is ${row.status}: it cannot be dispensed`);
      if (row.supplies_dispensed >= row.supplies_authorised) return refused(SIMULATOR_REFUSALS.noSupplyLeft, `Script ${scid} has no supply left: all ${row.supplies_authorised} were dispensed`);
      const result = await db
        .updateTable('pds_simulator_scripts')
        .set({ supplies_dispensed: row.supplies_dispensed + 1, last_dispensed_at: at })
        .where('scid', '=', scid)
        .where('supplies_dispensed', '=', row.supplies_dispensed)
        .executeTakeFirst();
      // Another dispense of the same script won the race: count again from what it left.
      if (Number(result.numUpdatedRows) === 0) return this.dispense(scid, at);
      return { ok: true, ...dispensingOf({ ...row, supplies_dispensed: row.supplies_dispensed + 1, last_dispensed_at: at }) };
    },
  };
}
