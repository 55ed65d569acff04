// The PDS submission runner of `erx serve` and `erx worker`: a pass over the due submissions
// every poll (retries, and jobs whose lease ended with a process that died). stop() ends the
// poll and waits for the attempts under way. To be moved onto the delivery toolkit's runner
// (src/platform/delivery/startPolledRunner) with the lease module.
import { runDueSubmissions } from './pds-submission.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';

/** How often the runner looks for due submissions, in milliseconds. */
export const SUBMISSION_POLL_MS = 1_000;

export function startPdsSubmissionRunner(ctx: PrescriptionsContext, pollMs = SUBMISSION_POLL_MS): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const pass = () => {
    if (running) return;
    running = runDueSubmissions(ctx)
      .catch((error: unknown) => ctx.pds.logger.error({ err: error }, 'PDS submission runner: a pass failed; the poll will try again'))
      .finally(() => (running = undefined));
  };
  const poll = setInterval(pass, pollMs);
  pass();
  return {
    async stop() {
      clearInterval(poll);
      await running;
      await Promise.all([...ctx.pds.inFlight]);
    },
  };
}
