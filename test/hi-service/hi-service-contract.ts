// The behaviour every HI Service adapter must show, as a Vitest suite any adapter's test
// file can run: `describeHiServiceContract('my adapter', () => createMyAdapter(...))`.
// The adapter under test must answer from the demo fixtures (HI_DEMO_FIXTURES).
// Imports Vitest, so it is for test files only and is not re-exported from index.ts.

import { beforeEach, describe, expect, it } from 'vitest';
import { HI_DEMO_PROVIDERS, type HiDemographics, type HiServicePort, type IhiSearchIdentifiers, type IhiSearchPath } from '../../src/hi-service/index.ts';
import { type HiPatientFixture, type HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { HiServiceRejectedError, HiServiceUnreachableError, type IhiSearchRequest, type ProviderVerificationRequest } from '../../src/hi-service/hi-service-port.ts';

// The request fields each path searches on (the spec's "Requires" column, less demographics).
const PATH_FIELDS: Record<IhiSearchPath, (keyof IhiSearchIdentifiers)[]> = {
  ihi_number: ['ihi_number'],
  medicare: ['medicare_card_number', 'medicare_irn'],
  dva: ['dva_file_number'],
  mobile: ['phone'],
  email: ['email'],
  'australian-street-address': ['australian_street_address'],
  'international-address': ['international_address'],
};

function pickDemographics(person: HiDemographics): HiDemographics {
  const { family_name, given_name, date_of_birth, sex } = person;
  return { family_name, given_name, date_of_birth, sex };
}

/** A request that searches `record` on `path`, carrying only that path's identifier. */
export function buildIhiSearchRequest(
  record: HiPatientFixture,
  path: IhiSearchPath,
  demographics: Partial<HiDemographics> = {},
): IhiSearchRequest {
  const request: IhiSearchRequest = {
    path,
    demographics: { ...pickDemographics(record), ...demographics },
  };
  for (const field of PATH_FIELDS[path]) Object.assign(request, { [field]: record[field] });
  return request;
}

export function buildProviderVerificationRequest(
  record: HiProviderFixture,
  changes: Partial<ProviderVerificationRequest> = {},
): ProviderVerificationRequest {
  return { hpii_number: record.hpii_number, ...pickDemographics(record), ...changes };
}

const patients = HI_DEMO_PATIENTS;
const providers = HI_DEMO_PROVIDERS;

const STATUS_CASES = [
  patients.activeVerified,
  patients.deceasedVerified,
  patients.retiredVerified,
  patients.expiredVerified,
  patients.resolvedVerified,
  patients.activeUnverified,
  patients.activeProvisional,
].map((record) => ({ ...record, label: `${record.ihi_status}/${record.ihi_record_status}` }));

const WRONG_DEMOGRAPHICS: [keyof HiDemographics, Partial<HiDemographics>][] = [
  ['family_name', { family_name: 'Woods' }],
  ['given_name', { given_name: 'Jess' }],
  ['date_of_birth', { date_of_birth: '1985-02-15' }],
  ['sex', { sex: 'M' }],
];

const SINGLE_PATH_CASES: [IhiSearchPath, HiPatientFixture][] = [
  ['dva', patients.dvaOnly],
  ['mobile', patients.mobileOnly],
  ['email', patients.emailOnly],
  ['australian-street-address', patients.streetAddressOnly],
  ['international-address', patients.internationalAddressOnly],
];

/** Who asks, as every call names it: an organization's HPI-O and the acting user. */
export const HI_CONTEXT = { hpio: '8003621566684455', userId: 'user-of-the-test' };

function describeIhiSearchContract(makeAdapter: () => HiServicePort): void {
  let adapter: HiServicePort;
  beforeEach(() => {
    adapter = makeAdapter();
  });

  it.each(STATUS_CASES)('finds $label with both status fields', async (record) => {
    const result = await adapter.searchIhi(buildIhiSearchRequest(record, 'medicare'), HI_CONTEXT);
    expect(result).toStrictEqual({
      kind: 'found',
      ihi_number: record.ihi_number,
      ihi_status: record.ihi_status,
      ihi_record_status: record.ihi_record_status,
    });
  });

  it('leaves both status fields out when the record has none', async () => {
    const record = patients.withoutStatus;
    const result = await adapter.searchIhi(buildIhiSearchRequest(record, 'medicare'), HI_CONTEXT);
    expect(result).toStrictEqual({ kind: 'found', ihi_number: record.ihi_number });
  });

  it.each(WRONG_DEMOGRAPHICS)('answers no_match when only %s differs', async (_field, change) => {
    const request = buildIhiSearchRequest(patients.activeVerified, 'ihi_number', change);
    expect(await adapter.searchIhi(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_match' });
  });

  it('matches names case-insensitively', async () => {
    const request = buildIhiSearchRequest(patients.activeVerified, 'medicare', {
      family_name: 'WOOD',
      given_name: 'jessica',
    });
    expect(await adapter.searchIhi(request, HI_CONTEXT)).toMatchObject({ kind: 'found' });
  });

  it('answers no_match for an identifier no record holds', async () => {
    const request = {
      ...buildIhiSearchRequest(patients.activeVerified, 'ihi_number'),
      ihi_number: '8003608666670997',
    };
    expect(await adapter.searchIhi(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_match' });
  });

  it('searches only the requested path and never falls back to another', async () => {
    const request = {
      ...buildIhiSearchRequest(patients.activeVerified, 'medicare'),
      medicare_card_number: '2950190661',
      ihi_number: patients.activeVerified.ihi_number,
      phone: patients.activeVerified.phone,
    };
    expect(await adapter.searchIhi(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_match' });
  });

  it('answers no_match when the request lacks the identifier of its path', async () => {
    const request = buildIhiSearchRequest(patients.activeVerified, 'medicare');
    const result = await adapter.searchIhi({ ...request, path: 'dva' }, HI_CONTEXT);
    expect(result).toStrictEqual({ kind: 'no_match' });
  });

  it.each(Object.keys(PATH_FIELDS) as IhiSearchPath[])(
    'finds the patient who holds every identifier on path %s',
    async (path) => {
      const { ihi_number } = patients.activeVerified;
      const result = await adapter.searchIhi(buildIhiSearchRequest(patients.activeVerified, path), HI_CONTEXT);
      expect(result).toMatchObject({ kind: 'found', ihi_number });
    },
  );

  it.each(SINGLE_PATH_CASES)('finds the patient known only by %s', async (path, record) => {
    const result = await adapter.searchIhi(buildIhiSearchRequest(record, path), HI_CONTEXT);
    expect(result).toMatchObject({ kind: 'found', ihi_number: record.ihi_number });
  });

  it.each(['ihi_number', 'medicare'] as const)(
    'throws HiServiceUnreachableError when a %s search reaches an unreachable record',
    async (path) => {
      const search = adapter.searchIhi(buildIhiSearchRequest(patients.unreachable, path), HI_CONTEXT);
      await expect(search).rejects.toBeInstanceOf(HiServiceUnreachableError);
      await expect(search).rejects.toMatchObject({ name: 'HiServiceUnreachableError' });
      await expect(search).rejects.not.toBeInstanceOf(HiServiceRejectedError);
    },
  );

  it.each(['ihi_number', 'medicare'] as const)(
    'throws HiServiceRejectedError with the service code when a %s search is refused',
    async (path) => {
      const search = adapter.searchIhi(buildIhiSearchRequest(patients.rejected, path), HI_CONTEXT);
      await expect(search).rejects.toBeInstanceOf(HiServiceRejectedError);
      await expect(search).rejects.toMatchObject({ severity: 'Error', code: patients.rejected.fault_code });
    },
  );

  it('compares names on their first 40 characters, as the wire carries them', async () => {
    const record = patients.longName;
    const longer = `${record.family_name}ternw`;
    expect(longer).toHaveLength(45);
    const found = await adapter.searchIhi(buildIhiSearchRequest(record, 'medicare', { family_name: longer }), HI_CONTEXT);
    expect(found).toMatchObject({ kind: 'found', ihi_number: record.ihi_number });
    const differing = `${record.family_name.slice(0, 39)}X${'ternw'}`;
    const missed = await adapter.searchIhi(buildIhiSearchRequest(record, 'medicare', { family_name: differing }), HI_CONTEXT);
    expect(missed).toStrictEqual({ kind: 'no_match' });
  });
}

function describeProviderContract(makeAdapter: () => HiServicePort): void {
  let adapter: HiServicePort;
  beforeEach(() => {
    adapter = makeAdapter();
  });

  it('verifies a provider whose HPI-I and demographics match', async () => {
    const request = buildProviderVerificationRequest(providers.verified);
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'verified' });
  });

  it('matches provider names case-insensitively', async () => {
    const request = buildProviderVerificationRequest(providers.verified, { family_name: 'SMITH' });
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'verified' });
  });

  it('answers no_match for an HPI-I no record holds', async () => {
    const request = buildProviderVerificationRequest(providers.verified, {
      hpii_number: '8003610001647326',
    });
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_match' });
  });

  it.each([
    ['family_name', { family_name: 'Smyth' }],
    ['given_name', { given_name: 'Anne' }],
    ['date_of_birth', { date_of_birth: '1970-01-02' }],
    ['sex', { sex: 'M' }],
  ] as const)('answers no_match when only the provider %s differs', async (_field, change) => {
    const request = buildProviderVerificationRequest(providers.verified, change);
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_match' });
  });

  it('answers no_status when the HI Service returns the provider without a status', async () => {
    const request = buildProviderVerificationRequest(providers.withoutStatus);
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_status' });
  });

  it('throws HiServiceUnreachableError when the service cannot be reached', async () => {
    const request = buildProviderVerificationRequest(providers.unreachable);
    const verification = adapter.verifyProvider(request, HI_CONTEXT);
    await expect(verification).rejects.toBeInstanceOf(HiServiceUnreachableError);
    await expect(verification).rejects.not.toBeInstanceOf(HiServiceRejectedError);
  });

  it.each([
    ['deactivated', providers.deactivated],
    ['retired', providers.retired],
  ] as const)('answers inactive for a %s HPI-I', async (_status, record) => {
    const request = buildProviderVerificationRequest(record);
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'inactive' });
  });

  it('answers no_match, not inactive, for an inactive HPI-I with other demographics', async () => {
    const request = buildProviderVerificationRequest(providers.deactivated, { given_name: 'Other' });
    expect(await adapter.verifyProvider(request, HI_CONTEXT)).toStrictEqual({ kind: 'no_match' });
  });

  it('throws HiServiceRejectedError with the service code when the lookup is refused', async () => {
    const verification = adapter.verifyProvider(buildProviderVerificationRequest(providers.rejected), HI_CONTEXT);
    await expect(verification).rejects.toBeInstanceOf(HiServiceRejectedError);
    await expect(verification).rejects.toMatchObject({ severity: 'Error', code: providers.rejected.fault_code });
  });
}

export function describeHiServiceContract(name: string, makeAdapter: () => HiServicePort): void {
  describe(`HI Service contract: ${name}`, () => {
    describe('IHI search', () => describeIhiSearchContract(makeAdapter));
    describe('provider verification', () => describeProviderContract(makeAdapter));
  });
}
