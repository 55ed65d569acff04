// Every background loop a process runs (the webhook dispatcher, the token-message runner, the
// retention schedule, and whatever job comes next), started in one place and stopped in one:
// features.ts lists them, `erx serve` and `erx worker` start the list, and on SIGTERM stop()
// stops them all at once and waits for each to drain (no new claims; what is in flight
// finishes and records its outcome) before the database closes.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';

/** A name for this process's runners, unique across processes: recorded as the owner of their leases. */
export function newRunnerId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export interface RunningLoop {
  /** Stops taking work and resolves once the work under way has finished. */
  stop(): Promise<void>;
}

export interface BackgroundLoop {
  /** For the log lines: "webhook dispatcher", "token messages", "retention". */
  name: string;
  /** `runnerId`: this process's name, the owner of every lease its loops take. */
  start(process: { runnerId: string }): RunningLoop;
}

export interface RunningLoops {
  readonly runnerId: string;
  /** Each loop by name, as started. */
  readonly loops: ReadonlyMap<string, RunningLoop>;
  /** Stops every loop at once and waits for all, whatever any does; rejects with the first failure. */
  stop(): Promise<void>;
}

export function startBackgroundLoops(list: readonly BackgroundLoop[], logger: Logger, options: { runnerId?: string } = {}): RunningLoops {
  const runnerId = options.runnerId ?? newRunnerId();
  const loops = new Map<string, RunningLoop>();
  try {
    for (const loop of list) loops.set(loop.name, loop.start({ runnerId }));
  } catch (error) {
    void Promise.allSettled([...loops.values()].map((running) => running.stop()));
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    runnerId,
    loops,
    stop() {
      stopping ??= (async () => {
        const names = [...loops.keys()];
        const results = await Promise.allSettled([...loops.values()].map((running) => running.stop()));
        const failures = results.flatMap((result, i) => (result.status === 'rejected' ? [{ name: names[i]!, error: result.reason as unknown }] : []));
        for (const failure of failures) logger.error({ err: failure.error, loop: failure.name }, 'a background loop failed to stop');
        if (failures.length > 0) throw failures[0]!.error;
      })();
      return stopping;
    },
  };
}
