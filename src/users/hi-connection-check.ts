// `erx hi check`: one provider lookup for a test provider the operator configured, to show that
// erx reaches the HI Service and is answered (the vendor test environment, or after a change of
// certificate). It says what came back and nothing else: no demographic beyond what was given,
// the HPI-I masked. The lookup leaves an hi.provider_verify entry like any other.
import { performance } from 'node:perf_hooks';
import { maskIdentifier } from '../audit/index.ts';
import { classifyHiFailure, HI_SEX_CODES, type HiSex } from '../hi-service/index.ts';
import { isCalendarDate, isValidHpii, isValidHpio } from '../identifiers/index.ts';
import type { UsersContext } from './users-service.ts';

/** The test provider and the organization the check asks on behalf of, as configured (undefined: not given). */
export interface HiCheckInput {
  hpio?: string;
  hpii?: string;
  familyName?: string;
  givenName?: string;
  dateOfBirth?: string;
  sex?: string;
}

/** The `user` header of the check's message: no erx user acts, the operator does. */
export const HI_CHECK_USER_ID = 'erx-operator-hi-check';

export type HiCheckResult =
  | { answered: true; answer: 'verified' | 'no_match' | 'no_status' | 'inactive'; durationMs: number }
  | { answered: false; answer: 'rejected'; severity: 'Error' | 'Fatal'; code: string; durationMs: number }
  | { answered: false; answer: 'unreachable'; reason: string; durationMs: number };

export class HiCheckInputError extends Error {
  override name = 'HiCheckInputError';
}

const FIELDS = [
  ['hpio', 'ERX_HI_CHECK_HPIO / --hpio', (value: string) => isValidHpio(value), 'is not a valid HPI-O'],
  ['hpii', 'ERX_HI_CHECK_HPII / --hpii', (value: string) => isValidHpii(value), 'is not a valid HPI-I'],
  ['familyName', 'ERX_HI_CHECK_FAMILY_NAME / --family-name', (value: string) => value.trim() !== '', 'is blank'],
  ['givenName', 'ERX_HI_CHECK_GIVEN_NAME / --given-name', (value: string) => value.trim() !== '', 'is blank'],
  ['dateOfBirth', 'ERX_HI_CHECK_DATE_OF_BIRTH / --date-of-birth', isCalendarDate, 'is not a date (YYYY-MM-DD)'],
  ['sex', 'ERX_HI_CHECK_SEX / --sex', (value: string) => (HI_SEX_CODES as readonly string[]).includes(value), 'is not one of M, F, N, I'],
] as const satisfies ReadonlyArray<readonly [keyof HiCheckInput, string, (value: string) => boolean, string]>;

/** Every missing or malformed value named at once (never echoing a value). */
function readCheckInput(input: HiCheckInput): Required<HiCheckInput> {
  const missing = FIELDS.filter(([field]) => !input[field]).map(([, name]) => name);
  if (missing.length > 0) throw new HiCheckInputError(`erx hi check needs the test provider: ${missing.join(', ')} not given`);
  const malformed = FIELDS.filter(([field, , isValid]) => !isValid(input[field]!)).map(([, name, , problem]) => `${name} ${problem}`);
  if (malformed.length > 0) throw new HiCheckInputError(`erx hi check: ${malformed.join('; ')}`);
  return input as Required<HiCheckInput>;
}

function resultOfError(error: unknown, durationMs: number): HiCheckResult {
  const failure = classifyHiFailure(error);
  if (failure.outcome === 'rejected') return { answered: false, answer: 'rejected', severity: failure.severity, code: failure.code, durationMs };
  if (failure.outcome === 'unreachable') return { answered: false, answer: 'unreachable', reason: failure.reason, durationMs };
  throw error;
}

export async function checkHiConnection(ctx: UsersContext, input: HiCheckInput): Promise<HiCheckResult> {
  const check = readCheckInput(input);
  const request = { hpii_number: check.hpii, family_name: check.familyName, given_name: check.givenName, date_of_birth: check.dateOfBirth, sex: check.sex as HiSex };
  const started = performance.now();
  let result: HiCheckResult;
  try {
    const answer = await ctx.hiService.verifyProvider(request, { hpio: check.hpio, userId: HI_CHECK_USER_ID });
    result = { answered: true, answer: answer.kind, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    result = resultOfError(error, Math.round(performance.now() - started));
  }
  await ctx.audit.noteAccess({
    action: 'hi.provider_verify',
    outcome: result.answered ? 'success' : 'error',
    hpio: check.hpio,
    detail: {
      searchPath: 'hpii',
      hpii: maskIdentifier(check.hpii),
      hiResult: result.answer,
      durationMs: result.durationMs,
      ...(result.answer === 'rejected' ? { reason: `${result.severity} ${result.code}` } : {}),
    },
  });
  return result;
}
