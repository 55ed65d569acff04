// Whether this instance can serve: /ready (the database answers) and /readyz (every dependency,
// named; see readiness-checks.ts).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { Deps } from '../deps.ts';
import { Readiness, type ReadinessReport, type WatchedLoop } from './readiness-checks.ts';

export interface SystemContext {
  db: Kysely<Database>;
  readiness: Readiness;
}

export function createSystemContext(deps: Pick<Deps, 'database' | 'rateLimiter' | 'logger'>): SystemContext {
  return { db: deps.database, readiness: new Readiness(deps.database, deps.rateLimiter, deps.logger) };
}

/** 503 when the database does not answer; the cause goes to the log, not to the caller. */
export async function checkReadiness(ctx: SystemContext, log: (error: unknown) => void): Promise<{ status: 'ready' }> {
  try {
    await sql`select 1`.execute(ctx.db);
  } catch (error) {
    log(error);
    throw new ApiError('SERVICE_UNAVAILABLE', 'The database is not reachable');
  }
  return { status: 'ready' };
}

/** Each check's status; ready when every one is ok. */
export function reportReadiness(ctx: SystemContext): Promise<ReadinessReport> {
  return ctx.readiness.report();
}

/** From now on /readyz also requires the webhook dispatcher this process runs to be running. */
export function watchDispatcher(ctx: SystemContext, dispatcher: WatchedLoop): void {
  ctx.readiness.watch('dispatcher', dispatcher);
}
