// The loop of a durable job's runner: one pass at a time (a wake during a pass runs one more
// after it), started by the wake-up after commit, by a timer for the earliest retry a pass
// reports, and by a poll (jobs of other processes on SQLite, leases that expired with a dead
// process). stop() ends the poll and the timers and waits for the pass under way: a graceful
// drain. The webhook dispatcher runs its own, finer loop (one lane per endpoint) on the same
// leases, wake-ups and background-loop start.
import { AsyncResource } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { RunningLoop } from './background-loops.ts';
import type { DeliveryWakeups } from './delivery-wakeups.ts';

/** setTimeout may fire within the millisecond a retry is due; this much more keeps the claim from finding it not yet due. */
export const RETRY_TIMER_SLACK_MS = 2;

export interface RunnerPass {
  /** When the earliest retry this pass scheduled is due, if any. */
  nextRetryAt: Date | undefined;
}

export interface PolledRunnerOptions {
  /** For the log lines. */
  name: string;
  /** Claims what is due and attempts it, until nothing due is left. */
  pass(): Promise<RunnerPass>;
  pollMs: number;
  clock: Clock;
  logger: Logger;
  /** The wake-ups after commit of its outbox. */
  wakeups?: DeliveryWakeups;
  /** Called once the last pass has finished (closes the runner's senders). */
  onStopped?(): void | Promise<void>;
}

export function startPolledRunner(options: PolledRunnerOptions): RunningLoop {
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  const timers = new Set<NodeJS.Timeout>();
  // Bound to the runner's own context: a wake comes from the commit of a request, whose audit scope the runner's entries must not join.
  const pass = AsyncResource.bind((): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = options
      .pass()
      .then(
        (run) => {
          if (run.nextRetryAt) wakeAt(run.nextRetryAt);
        },
        (error: unknown) => options.logger.error({ err: error }, `${options.name}: a pass failed; the poll will try again`),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          pass();
        }
      });
  });
  const wakeAt = (at: Date): void => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      pass();
    }, Math.max(0, at.getTime() - options.clock.now().getTime()) + RETRY_TIMER_SLACK_MS);
    timers.add(timer);
  };
  const unsubscribe = options.wakeups?.onWake(() => pass());
  const poll = setInterval(pass, options.pollMs);
  pass();
  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const timer of timers) clearTimeout(timer);
      unsubscribe?.();
      await running;
      await options.onStopped?.();
    },
  };
}
