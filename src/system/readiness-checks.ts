// /readyz: whether this process can serve now. Each check is named and answers ok or failing;
// the cause of a failure goes to the log (once, when the check turns failing), never to the
// caller. A check that does not answer within CHECK_TIMEOUT_MS is failing, so a hung connection
// cannot hold a probe past its deadline; a check still running when the next probe comes is
// joined, not started again, so hung checks cannot pile up (or take every pooled connection).
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../platform/db/database-schema.ts';
import { MIGRATIONS } from '../platform/db/migrator.ts';
import type { RateLimiter } from '../platform/http/rate-limiter.ts';

/**
 * Per check, in ms. The checks run side by side, so a probe answers within about this long,
 * inside the 2 s in which losing the database or Redis must show (a kubelet's probe timeout
 * defaults to 1 s: an orchestrator should give /readyz 2 s).
 */
export const CHECK_TIMEOUT_MS = 1000;

export type CheckStatus = 'ok' | 'failing';

export interface ReadinessReport {
  status: 'ready' | 'unready';
  checks: Record<string, CheckStatus>;
}

interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency is fine; rejects (or hangs) otherwise. */
  run(): Promise<void>;
}

/** Something that runs in this process and may stop (the webhook dispatcher of `erx serve`). */
export interface WatchedLoop {
  isRunning(): boolean;
}

export class Readiness {
  readonly #checks: ReadinessCheck[];
  readonly #inFlight = new Map<string, Promise<unknown>>();
  readonly #last = new Map<string, CheckStatus>();
  readonly #logger: Logger;

  constructor(db: Kysely<Database>, rateLimiter: RateLimiter, logger: Logger) {
    this.#logger = logger;
    this.#checks = [
      { name: 'database', run: () => sql`select 1`.execute(db).then(() => undefined) },
      { name: 'migrations', run: () => checkMigrationsApplied(db) },
    ];
    const { ping } = rateLimiter;
    if (ping) this.#checks.push({ name: 'redis', run: () => ping.call(rateLimiter) });
  }

  /** Adds a check that `loop` is running, from now on. */
  watch(name: string, loop: WatchedLoop): void {
    this.#checks.push({
      name,
      run: async () => {
        if (!loop.isRunning()) throw new Error(`${name} is not running`);
      },
    });
  }

  async report(): Promise<ReadinessReport> {
    const statuses = await Promise.all(this.#checks.map((check) => this.#runBounded(check)));
    const checks = Object.fromEntries(this.#checks.map((check, i) => [check.name, statuses[i]!]));
    return { status: statuses.every((status) => status === 'ok') ? 'ready' : 'unready', checks };
  }

  async #runBounded(check: ReadinessCheck): Promise<CheckStatus> {
    let outcome = this.#inFlight.get(check.name);
    if (!outcome) {
      // Settles with the error, or undefined when the check passed: it never rejects.
      const started = check.run().then(
        () => undefined,
        (error: unknown) => error ?? new Error('failed'),
      );
      outcome = started.finally(() => this.#inFlight.delete(check.name));
      this.#inFlight.set(check.name, outcome);
    }
    const error = await withTimeout(outcome, CHECK_TIMEOUT_MS, new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`));
    const status: CheckStatus = error === undefined ? 'ok' : 'failing';
    this.#noteChange(check.name, status, error);
    return status;
  }

  #noteChange(name: string, status: CheckStatus, error: unknown): void {
    const before = this.#last.get(name);
    this.#last.set(name, status);
    if (status === 'failing' && before !== 'failing') this.#logger.warn({ err: error, check: name }, 'readiness check failing');
    if (status === 'ok' && before === 'failing') this.#logger.info({ check: name }, 'readiness check ok again');
  }
}

/** Every migration this build knows has been applied to the database. */
async function checkMigrationsApplied(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const applied = new Set(rows.map((row) => row.name));
  const missing = Object.keys(MIGRATIONS).filter((name) => !applied.has(name));
  if (missing.length > 0) throw new Error(`migrations not applied: ${missing.join(', ')}`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(onTimeout), ms);
    timer.unref();
    void promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
