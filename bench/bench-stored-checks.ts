// Checks a row runs once after its measurement, for what no HTTP answer shows, through the
// operator CLI on the server's own configuration (as an operator would look). Each throws when
// the stored state contradicts the row's name and otherwise returns one line for the log.
import type { BenchVariables } from './bench-variables.ts';
import { runNodeCommand } from './bench-processes.ts';

export type StoredCheck = (serverEnv: NodeJS.ProcessEnv, variables: BenchVariables) => Promise<string>;

function variable(variables: BenchVariables, name: string): string {
  const value = variables[name];
  if (value === undefined) throw new Error(`stored check: no bench variable ${name}`);
  return value;
}

interface ShownUser {
  provider_record: { status: string; title: string | null; verified_at: string; created_at: string; updated_at: string } | null;
}

/**
 * The prescriber's provider record took the row's writes but was never verified again. A
 * lookup that succeeds rewrites `verified_at` (and the record) with the request's time; one
 * that fails answers 4xx/5xx, which the bench already refuses. The record was created (by the
 * sandbox seed) with `verified_at` = `created_at`, so if they are still equal after thousands of
 * updates, none of those updates asked the HI Service.
 */
export const prescriberRecordNeverReverified: StoredCheck = async (serverEnv, variables) => {
  const output = await runNodeCommand(['bin/erx.js', 'user', 'show', variable(variables, 'prescriber_user_id'), '--json'], serverEnv);
  const record = (JSON.parse(output) as ShownUser).provider_record;
  if (!record) throw new Error('the prescriber has no provider record after the run');
  const stored = JSON.stringify({ status: record.status, title: record.title, verified_at: record.verified_at, created_at: record.created_at, updated_at: record.updated_at });
  if (record.status !== 'active') throw new Error(`the prescriber's provider record is no longer active: ${stored}`);
  if (record.verified_at !== record.created_at) {
    throw new Error(`the prescriber's provider record was verified again during the run (an HI lookup ran): ${stored}`);
  }
  if (!(record.updated_at > record.verified_at) || !record.title?.startsWith('Dr ')) {
    throw new Error(`the prescriber's provider record does not show the row's writes: ${stored}`);
  }
  return `provider record: verified_at ${record.verified_at} = created_at (no HI lookup since setup); title "${record.title}", updated_at ${record.updated_at}`;
};
