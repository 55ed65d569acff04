// The hourly prune, one of the background loops of `erx serve` and `erx worker`. Timers are injected, so a
// test fires them itself instead of waiting an hour; the cutoffs come from the context's clock.
// The first run comes shortly after start, so instances that are redeployed more often than
// hourly still prune; stop() ends a run between two batches and waits for it.
import { pruneExpiredRecords, type RetentionContext } from './retention-service.ts';

export interface RetentionTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemTimers: RetentionTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const RETENTION_EVERY_MS = 3_600_000;
/** After start, before the first run: out of the way of a start's own work. */
export const RETENTION_FIRST_AFTER_MS = 60_000;

export interface RetentionScheduleOptions {
  timers?: RetentionTimers;
  everyMs?: number;
  firstAfterMs?: number;
}

export interface RunningRetention {
  stop(): Promise<void>;
}

export function startRetentionSchedule(ctx: RetentionContext, options: RetentionScheduleOptions = {}): RunningRetention {
  const timers = options.timers ?? systemTimers;
  const stopping = new AbortController();
  let timer: unknown;
  let running: Promise<void> | undefined;

  const run = async () => {
    const started = Date.now();
    try {
      const report = await pruneExpiredRecords(ctx, { signal: stopping.signal });
      const removed = Object.values(report.counts).reduce((a, b) => a + b, 0);
      const steps = Object.fromEntries(report.steps.map((step) => [step.step, { ...step.counts, batches: step.batches, ms: step.ms }]));
      ctx.logger.info({ retention: report.counts, steps, batches: report.batches, ms: Date.now() - started, interrupted: report.interrupted }, `retention pruned ${removed} rows`);
    } catch (error) {
      ctx.logger.error({ err: error }, 'retention run failed; the next run tries again');
    }
  };
  const schedule = (ms: number) => {
    timer = timers.setTimeout(() => {
      running = run().finally(() => {
        running = undefined;
        if (!stopping.signal.aborted) schedule(options.everyMs ?? RETENTION_EVERY_MS);
      });
    }, ms);
  };
  schedule(options.firstAfterMs ?? RETENTION_FIRST_AFTER_MS);
  return {
    async stop() {
      stopping.abort();
      timers.clearTimeout(timer);
      await running;
    },
  };
}
