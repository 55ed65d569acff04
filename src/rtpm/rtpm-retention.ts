// Retention of rtpm_checks: a check serves the form it was made for (RTPM_CHECK_VALID_MS), and
// its notifications' text is the state system's, not erx's record: rows are removed a day after
// the check, by the feature itself each time it makes a check (rtpm-service.ts): a day's rows are
// few (one per monitored prescription), so no schedule of its own is needed. The audit trail keeps
// the check, the acknowledgement and the attestation.
import type { RtpmContext } from './rtpm-service.ts';
import { deleteRtpmChecksBefore } from './rtpm-store.ts';

export const RTPM_CHECKS_KEPT_MS = 24 * 60 * 60 * 1000;

/** Removes the checks older than RTPM_CHECKS_KEPT_MS; returns how many. */
export async function pruneRtpmChecks(ctx: Pick<RtpmContext, 'db' | 'clock'>): Promise<number> {
  return deleteRtpmChecksBefore(ctx.db, new Date(ctx.clock.now().getTime() - RTPM_CHECKS_KEPT_MS).toISOString());
}
