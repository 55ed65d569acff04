import { describe, expect, it } from 'vitest';
import type { IhiRecordStatus, IhiStatus } from '../hi-service/index.ts';
import { buildPrecheckData, createWouldSucceed, describePrecheck, type PatientCheck } from './ihi-precheck.ts';
import { planIhiSearch } from './ihi-search.ts';
import type { PatientRow } from './patients-store.ts';

const IHI = '8003601240022579';

function found(ihi_status?: IhiStatus, ihi_record_status?: IhiRecordStatus): PatientCheck {
  return {
    outcome: 'ihi_found',
    search: {
      kind: 'found',
      searchedPath: 'mobile',
      failedPaths: ['medicare'],
      found: { kind: 'found', ihi_number: IHI, ...(ihi_status ? { ihi_status } : {}), ...(ihi_record_status ? { ihi_record_status } : {}) },
    },
  };
}

const verifiedRun = (found('ACTIVE', 'VERIFIED') as Extract<PatientCheck, { outcome: 'ihi_found' }>).search;
const existing = { id: 'patient-1', ihi_number_encrypted: 'v1.sealed' } as PatientRow;

// The spec's outcomes table, row by row: outcome, create_would_succeed, ihi_check_passed.
const OUTCOME_TABLE: Array<[string, PatientCheck, boolean, boolean | undefined]> = [
  ['ihi_found ACTIVE VERIFIED', found('ACTIVE', 'VERIFIED'), true, true],
  ['ihi_found DECEASED VERIFIED', found('DECEASED', 'VERIFIED'), true, false],
  ['ihi_found EXPIRED VERIFIED', found('EXPIRED', 'VERIFIED'), true, false],
  ['ihi_found ACTIVE PROVISIONAL', found('ACTIVE', 'PROVISIONAL'), false, false],
  ['ihi_found ACTIVE UNVERIFIED', found('ACTIVE', 'UNVERIFIED'), false, false],
  ['ihi_found without statuses', found(), false, false],
  ['no_match', { outcome: 'no_match', search: { kind: 'no_match', searchedPath: 'email', failedPaths: [] } }, true, false],
  ['insufficient_data', { outcome: 'insufficient_data', plan: planIhiSearch({}) }, false, undefined],
  ['insufficient_data, Medicare without IRN', { outcome: 'insufficient_data', plan: planIhiSearch({ medicare_card_number: '2950141861' }) }, true, undefined],
  ['already_exists, live check passed', { outcome: 'already_exists', existing, live: verifiedRun }, true, true],
  ['already_exists, live check found nothing', { outcome: 'already_exists', existing, live: { kind: 'no_match', searchedPath: 'dva', failedPaths: [] } }, true, false],
  ['already_exists, live check unreachable', { outcome: 'already_exists', existing, live: { kind: 'unreachable', searchedPath: 'dva', failedPaths: [] } }, true, undefined],
  ['already_exists, no live check', { outcome: 'already_exists', existing, live: undefined }, true, undefined],
  ['organization_not_ready', { outcome: 'organization_not_ready' }, false, undefined],
  ['hi_service_error', { outcome: 'hi_service_error', search: { kind: 'unreachable', searchedPath: 'medicare', failedPaths: [] } }, false, undefined],
];

describe('the precheck outcome rules', () => {
  it.each(OUTCOME_TABLE)('%s: create_would_succeed %s, ihi_check_passed %s', (_name, check, wouldSucceed, passed) => {
    const data = buildPrecheckData(check);
    expect(data.outcome).toBe(check.outcome);
    expect(data.create_would_succeed).toBe(wouldSucceed);
    expect(createWouldSucceed(check)).toBe(wouldSucceed);
    if (passed === undefined) expect(data).not.toHaveProperty('ihi_check_passed');
    else expect(data.ihi_check_passed).toBe(passed);
  });

  it.each(OUTCOME_TABLE)('%s: neither data nor message carries the IHI', (_name, check) => {
    expect(JSON.stringify(buildPrecheckData(check))).not.toContain(IHI);
    expect(describePrecheck(check)).not.toContain(IHI);
  });
});

describe('the hi_service_error message', () => {
  const errorOf = (extra: { budgetSpent?: true; refused?: true }): PatientCheck => ({
    outcome: 'hi_service_error',
    search: { kind: 'unreachable', searchedPath: 'dva', failedPaths: ['medicare'], ...extra },
  });

  it.each([
    ['unreachable', {}, 'The HI Service could not be reached while searching using DVA file number (no record found using Medicare number); retry later'],
    ['refused', { refused: true as const }, 'The HI Service answered the search using DVA file number with an error (no record found using Medicare number); retry later'],
    ['out of budget', { budgetSpent: true as const }, "The request's time budget for the HI Service ran out at the search using DVA file number (no record found using Medicare number); retry later"],
  ])('says why when the service was %s', (_case, extra, message) => {
    expect(describePrecheck(errorOf(extra))).toBe(message);
    expect(buildPrecheckData(errorOf(extra))).toEqual({ outcome: 'hi_service_error', create_would_succeed: false, searched_path: 'dva', failed_paths: ['medicare'] });
  });
});
