// Checks a row runs once after its measurement, straight against the server's database, for
// what no HTTP answer shows. Each throws when the stored state contradicts the row's name and
// otherwise returns one line for the log.
import type { Kysely } from 'kysely';
import type { Database } from '../src/platform/db/database-schema.ts';
import type { BenchVariables } from './bench-endpoints.ts';

export type StoredCheck = (db: Kysely<Database>, variables: BenchVariables) => Promise<string>;

function variable(variables: BenchVariables, name: string): string {
  const value = variables[name];
  if (value === undefined) throw new Error(`stored check: no bench variable ${name}`);
  return value;
}

/**
 * The prescriber's provider record took the row's writes but was never verified again. A
 * lookup that succeeds rewrites `verified_at` (and the record) with the request's time; one
 * that fails answers 4xx/5xx, which the bench already refuses. The record was created (by the
 * sandbox seed) with `verified_at` = `created_at`, so if they are still equal after thousands of
 * updates, none of those updates asked the HI Service.
 */
export const prescriberRecordNeverReverified: StoredCheck = async (db, variables) => {
  const record = await db
    .selectFrom('provider_records')
    .select(['status', 'title', 'verified_at', 'created_at', 'updated_at'])
    .where('organization_id', '=', variable(variables, 'organization_id'))
    .where('user_id', '=', variable(variables, 'prescriber_user_id'))
    .executeTakeFirst();
  if (!record) throw new Error('the prescriber has no provider record after the run');
  const stored = JSON.stringify(record);
  if (record.status !== 'active') throw new Error(`the prescriber's provider record is no longer active: ${stored}`);
  if (record.verified_at !== record.created_at) {
    throw new Error(`the prescriber's provider record was verified again during the run (an HI lookup ran): ${stored}`);
  }
  if (!(record.updated_at > record.verified_at) || !record.title?.startsWith('Dr ')) {
    throw new Error(`the prescriber's provider record does not show the row's writes: ${stored}`);
  }
  return `provider record: verified_at ${record.verified_at} = created_at (no HI lookup since setup); title "${record.title}", updated_at ${record.updated_at}`;
};
