// Whether this instance can serve: the database answers.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { Deps } from '../deps.ts';

export interface SystemContext {
  db: Kysely<Database>;
}

export function createSystemContext(deps: Pick<Deps, 'database'>): SystemContext {
  return { db: deps.database };
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
