// The rtpm feature's retention step (registered in features.ts): a check serves the form it was
// made for (RTPM_CHECK_VALID_MS), and its notifications' text is the state system's, not erx's
// record: rows of rtpm_checks are removed a day after the check. The audit trail keeps the
// check, the acknowledgement and the attestation.
import { changedRows, countOf, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';

export const RTPM_CHECKS_KEPT_MS = 24 * 60 * 60 * 1000;

export function createRtpmRetentionStep(): RetentionStep {
  const cutoff = (now: Date) => new Date(now.getTime() - RTPM_CHECKS_KEPT_MS).toISOString();
  return singleKindStep({
    name: 'rtpm_checks',
    table: 'rtpm_checks',
    cutoffs: (now) => ({ rtpm_checks_before: cutoff(now) }),
    count: (db, now) => countOf(db.selectFrom('rtpm_checks').where('created_at', '<', cutoff(now)).select((eb) => eb.fn.countAll<string>().as('n'))),
    batch: async (trx, now, limit) =>
      changedRows(await trx.deleteFrom('rtpm_checks').where('id', 'in', trx.selectFrom('rtpm_checks').select('id').where('created_at', '<', cutoff(now)).limit(limit)).executeTakeFirst()),
  });
}
