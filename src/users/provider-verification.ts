// When a provider is checked with the HI Service, what must hold before asking, and what each
// answer means. The lookup itself is the HI Service port's verifyProvider; each one leaves an
// hi.provider_verify entry in the audit trail (the HPI-I masked), whatever it answered.
import { performance } from 'node:perf_hooks';
import { maskIdentifier, type AuditTrail } from '../audit/index.ts';
import { classifyHiFailure, type HiCallContext, type HiServicePort, type HiSex } from '../hi-service/index.ts';
import { isValidHpii, isValidHpio } from '../identifiers/index.ts';
import { ApiError, validationFailed, type ValidationCode } from '../platform/http/api-error.ts';
import { changesIdentity, RECORD_ACTIVE, type ProviderDetailsPatch, type ProviderIdentity, type ProviderRecordRow } from './provider-details.ts';

/** The answers that leave a provider unverified, and how each is reported. */
export const UNVERIFIED_ANSWERS = {
  no_match: {
    code: 'HI_SERVICE_NO_MATCH',
    message: 'The HI Service holds no provider with this HPI-I, names, date of birth and sex; correct the details, do not retry the same values',
    warning: 'The HI Service found no provider with this HPI-I and these details: no provider record was created and the user cannot prescribe',
  },
  no_status: {
    code: 'HI_SERVICE_NOT_VERIFIED',
    message: 'The HI Service returned no status for this HPI-I; nothing was saved; retry later',
    warning: 'The HI Service returned no status for this HPI-I: no provider record was created and the user cannot prescribe',
  },
  inactive: {
    code: 'HI_SERVICE_NOT_VERIFIED',
    message: 'The HI Service holds this HPI-I as deactivated or retired; a provider with an inactive HPI-I cannot prescribe; nothing was saved',
    warning: 'The HI Service holds this HPI-I as deactivated or retired: no provider record was created and the user cannot prescribe',
  },
} as const satisfies Record<string, { code: ValidationCode; message: string; warning: string }>;

export type HiAnswer = 'verified' | keyof typeof UNVERIFIED_ANSWERS;

/**
 * The spec: a lookup runs when provider_details is sent and the record is absent or not
 * active, or the request changes the HPI-I or a demographic of an active record.
 */
export function needsHiLookup(stored: ProviderRecordRow | undefined, patch: ProviderDetailsPatch): boolean {
  if (stored === undefined || stored.status !== RECORD_ACTIVE) return true;
  return changesIdentity(patch, stored);
}

/** 400 INVALID_USER_PARAMETERS for an HPI-I that is not well formed. */
export function checkHpiiNumber(value: string | undefined, field: string): void {
  if (value === undefined || isValidHpii(value)) return;
  throw new ApiError('INVALID_USER_PARAMETERS', `${field} is not a valid HPI-I: 16 digits starting 800361 with a valid check digit`);
}

/** 400 INVALID_USER_PARAMETERS unless the organization holds a well-formed HPI-O (needed to ask the HI Service). */
export function checkOrganizationHpio(hpio: string | null | undefined): void {
  if (hpio && isValidHpio(hpio)) return;
  throw new ApiError(
    'INVALID_USER_PARAMETERS',
    "The organization's HPI-O is missing or invalid, so providers cannot be verified; the operator must correct it",
  );
}

/** What a lookup needs: the port, and the trail its entry goes to. */
export interface HiLookup {
  hiService: HiServicePort;
  audit: AuditTrail;
}

/**
 * Asks the HI Service, on behalf of `context` (the organization's HPI-O, the acting user), about
 * `targetUserId`'s identity; an unreachable or refusing service is a 500 (the caller has saved
 * nothing yet) and an entry with outcome 'error' (hiResult `unreachable`, or `rejected` with the
 * service's severity and code as its reason). The entry is noted before the
 * answer is acted on, so a refusal that follows (422, 500) still shows the lookup.
 */
export async function askHiService(lookup: HiLookup, context: HiCallContext, identity: ProviderIdentity, targetUserId: string): Promise<HiAnswer> {
  const started = performance.now();
  const note = (hiResult: string, outcome: 'success' | 'error', reason?: string) =>
    lookup.audit.noteAccess({
      action: 'hi.provider_verify',
      outcome,
      targetUserId,
      detail: {
        searchPath: 'hpii',
        hpii: maskIdentifier(identity.hpii_number),
        hiResult,
        durationMs: Math.round(performance.now() - started),
        ...(reason === undefined ? {} : { reason }),
      },
    });
  let answer: HiAnswer;
  try {
    answer = (await lookup.hiService.verifyProvider(Object.assign({}, identity, { sex: identity.sex as HiSex }), context)).kind;
  } catch (error) {
    const failure = classifyHiFailure(error);
    await note(failure.outcome, 'error', failure.outcome === 'rejected' ? failure.reason : undefined);
    if (failure.outcome === 'error') throw error;
    throw new ApiError('INTERNAL_ERROR', 'The HI Service could not be reached; nothing was saved; retry later');
  }
  await note(answer, 'success');
  return answer;
}

/** Update user: an unverified answer is a 422 naming the HPI-I field (under the object's name as sent). */
export function rejectUnverified(answer: HiAnswer, field = 'provider_details.hpii_number'): void {
  if (answer === 'verified') return;
  const { code, message } = UNVERIFIED_ANSWERS[answer];
  throw validationFailed([{ field, message, code }], 'The HI Service did not verify the provider; nothing was saved');
}

export function hpiiConflict(): ApiError {
  return new ApiError('USER_ALREADY_EXISTS', 'The HPI-I is already held by another active provider in the organization');
}
