// The PDS submission runner of `erx serve` and `erx worker`, on the delivery toolkit's polled
// runner: a pass over the due submissions every poll (retries, and jobs whose lease ended with a
// process that died), a timer for the earliest retry, and a stop that waits for the pass and for
// the attempts creates started in this process.
import { startPolledRunner, type RunningLoop } from '../platform/delivery/index.ts';
import { runDueSubmissions } from './pds-submission.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';

/** How often the runner looks for due submissions, in milliseconds. */
export const SUBMISSION_POLL_MS = 1_000;

export function startPdsSubmissionRunner(ctx: PrescriptionsContext, pollMs = SUBMISSION_POLL_MS): RunningLoop {
  return startPolledRunner({
    name: 'PDS submissions',
    pass: async () => ({ nextRetryAt: await runDueSubmissions(ctx) }),
    pollMs,
    clock: ctx.clock,
    logger: ctx.pds.logger,
    onStopped: async () => {
      await Promise.all([...ctx.pds.inFlight]);
    },
  });
}
