import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HI_DEMO_FIXTURES, loadHiSandboxFixtures } from './hi-demo-fixtures.ts';
import {
  loadHiFixtureFile,
  mergeHiFixtures,
  type HiPatientFixture,
  type HiProviderFixture,
} from './hi-fixture-file.ts';

const directory = mkdtempSync(join(tmpdir(), 'hi-fixture-file-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let fileCount = 0;
function writeFixtureFile(content: unknown): string {
  fileCount += 1;
  const path = join(directory, `fixtures-${fileCount}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function givenPatient(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ihi_number: '8003608666670997',
    family_name: 'Fixture',
    given_name: 'Fiona',
    date_of_birth: '1990-01-31',
    sex: 'F',
    ...overrides,
  };
}

function givenProvider(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    hpii_number: '8003610001647326',
    family_name: 'Fixture',
    given_name: 'Felix',
    date_of_birth: '1960-06-30',
    sex: 'M',
    ...overrides,
  };
}

const STREET_ADDRESS = {
  street_number: '1',
  street_name: 'A St',
  suburb: 'Ely',
  state: 'VIC',
  postcode: '3000',
};

function withPatient(overrides: Record<string, unknown>): unknown {
  return { patients: [givenPatient(overrides)] };
}

describe('loadHiFixtureFile', () => {
  it('loads a valid file and fills in a missing list', () => {
    const patient = givenPatient({ ihi_status: 'ACTIVE', phone: '+61412000111' });
    const path = writeFixtureFile({ patients: [patient] });
    expect(loadHiFixtureFile(path)).toStrictEqual({ patients: [patient], providers: [] });
  });

  it('accepts every optional field of the documented format', () => {
    const patient = givenPatient({
      ihi_status: 'DECEASED',
      ihi_record_status: 'PROVISIONAL',
      medicare_card_number: '2950190661',
      medicare_irn: '2',
      dva_file_number: 'N 908030D',
      phone: '0412000111',
      email: 'fiona@example.net',
      australian_street_address: {
        street_number: '3',
        street_name: 'High St',
        suburb: 'Ely',
        state: 'TAS',
        postcode: '7000',
      },
      international_address: { address_line: 'Rue 1', postcode: '75001', state_province: 'IDF', country: 'FR' },
      fault: 'rejected',
      fault_code: 'WSE0035',
      fault_severity: 'Fatal',
    });
    const provider = givenProvider({ hpii_status: 'retired', fault: 'rejected', fault_code: 'PCODE-1', fault_severity: 'Error' });
    const path = writeFixtureFile({ patients: [patient], providers: [provider] });
    expect(loadHiFixtureFile(path)).toStrictEqual({ patients: [patient], providers: [provider] });
  });

  it.each([{ refuse: { code: 'PATIENT_BLOCKED', message: 'The PDS refuses scripts for this patient' } }, 'timeout', 'unreachable'])(
    'accepts a patient whose PDS submissions fail: %j',
    (pds) => {
      const patient = givenPatient({ pds });
      expect(loadHiFixtureFile(writeFixtureFile({ patients: [patient] })).patients).toStrictEqual([patient]);
    },
  );

  it.each([{ refuse: { code: 'X' } }, 'down', { refuse: { code: 'X', message: 'm' }, extra: 1 }])('refuses a pds entry that is not one of the three: %j', (pds) => {
    expect(() => loadHiFixtureFile(writeFixtureFile({ patients: [givenPatient({ pds })] }))).toThrow(/patients\[0\]\.pds/);
  });

  it.each(['active', 'deactivated', 'retired'])('accepts a provider whose HPI-I is %s', (hpii_status) => {
    const provider = givenProvider({ hpii_status });
    expect(loadHiFixtureFile(writeFixtureFile({ providers: [provider] })).providers).toStrictEqual([provider]);
  });

  it.each<[string, unknown, string]>([
    [
      'a missing field',
      {
        patients: [givenPatient(), givenPatient(), givenPatient({ date_of_birth: undefined })],
      },
      'patients[2].date_of_birth is required',
    ],
    [
      'a malformed date',
      withPatient({ date_of_birth: '31/01/1990' }),
      'patients[0].date_of_birth is invalid',
    ],
    [
      'an impossible date',
      withPatient({ date_of_birth: '1990-02-30' }),
      'patients[0].date_of_birth is not a calendar date',
    ],
    [
      'an unknown status',
      withPatient({ ihi_status: 'Active' }),
      'patients[0].ihi_status must be one of ACTIVE, DECEASED, RETIRED, EXPIRED, RESOLVED, UNKNOWN',
    ],
    [
      'an unknown sex',
      withPatient({ sex: 'X' }),
      'patients[0].sex must be one of M, F, N, I',
    ],
    [
      'a misspelt field',
      withPatient({ ihi_stauts: 'ACTIVE' }),
      'patients[0].ihi_stauts is not a field of this format',
    ],
    [
      'a bad street address',
      withPatient({ australian_street_address: { ...STREET_ADDRESS, postcode: '30' } }),
      'patients[0].australian_street_address.postcode is invalid',
    ],
    [
      'an IHI failing its check digit',
      withPatient({ ihi_number: '8003601240022578' }),
      'patients[0].ihi_number is not a valid IHI',
    ],
    [
      'an HPI-I offered as IHI',
      withPatient({ ihi_number: '8003619166667284' }),
      'patients[0].ihi_number is not a valid IHI',
    ],
    [
      'a Medicare number failing its check digit',
      withPatient({ medicare_card_number: '2950141871', medicare_irn: '1' }),
      'patients[0].medicare_card_number is not a valid Medicare card number',
    ],
    [
      'a Medicare number without IRN',
      withPatient({ medicare_card_number: '2950141861' }),
      'patients[0].medicare_irn is required with medicare_card_number',
    ],
    [
      'a landline',
      withPatient({ phone: '0312345678' }),
      'patients[0].phone is not an Australian mobile number',
    ],
    [
      'a patient fault that only providers have',
      withPatient({ fault: 'no_status' }),
      'patients[0].fault must be one of unreachable, rejected',
    ],
    [
      'an unknown provider fault',
      { providers: [givenProvider({ fault: 'timeout' })] },
      'providers[0].fault must be one of unreachable, rejected, no_status',
    ],
    [
      'a fault code without a rejection',
      withPatient({ fault: 'unreachable', fault_code: 'WSE0035' }),
      'patients[0].fault_code is allowed only with "fault": "rejected"',
    ],
    [
      'a provider fault severity without a rejection',
      { providers: [givenProvider({ fault_severity: 'Fatal' })] },
      'providers[0].fault_severity is allowed only with "fault": "rejected"',
    ],
    [
      'an unknown rejection severity',
      withPatient({ fault: 'rejected', fault_severity: 'Warning' }),
      'patients[0].fault_severity must be one of Error, Fatal',
    ],
    [
      'an unknown HPI-I status',
      { providers: [givenProvider({ hpii_status: 'suspended' })] },
      'providers[0].hpii_status must be one of active, deactivated, retired',
    ],
    [
      'an international address without a state or province',
      withPatient({ international_address: { address_line: 'Rue 1', postcode: '75001', country: 'FR' } }),
      'patients[0].international_address.state_province is required',
    ],
    [
      'an international address without a postcode',
      withPatient({ international_address: { address_line: 'Rue 1', state_province: 'IDF', country: 'FR' } }),
      'patients[0].international_address.postcode is required',
    ],
    [
      'a country that is a name, not an ISO 3166-1 alpha-2 code',
      withPatient({ international_address: { address_line: 'Rue 1', postcode: '75001', state_province: 'IDF', country: 'France' } }),
      'patients[0].international_address.country has no HI Service country code: it is not an ISO 3166-1 alpha-2 country code',
    ],
    [
      'the United Kingdom as a whole',
      withPatient({ international_address: { address_line: '1 High St', postcode: 'EH1 1AA', state_province: 'Midlothian', country: 'GB' } }),
      'patients[0].international_address.country has no HI Service country code: the HI Service takes the country of the United Kingdom: send GB-ENG, GB-SCT, GB-WLS or GB-NIR',
    ],
    [
      'an invalid HPI-I',
      { providers: [givenProvider({ hpii_number: '8003619166667285' })] },
      'providers[0].hpii_number is not a valid HPI-I',
    ],
    [
      'a list that is not an array',
      { patients: {} },
      'patients is invalid',
    ],
    [
      'a top level that is not an object',
      [],
      '(top level) is invalid',
    ],
  ])('rejects %s, naming the file and the first bad field', (_case, content, problem) => {
    const path = writeFixtureFile(content);
    expect(() => loadHiFixtureFile(path)).toThrow(`HI fixture file ${path}: ${problem}`);
  });

  it('reports errors on one line', () => {
    const path = writeFixtureFile({ patients: [givenPatient({ sex: 'X' })] });
    expect(() => loadHiFixtureFile(path)).toThrow(/^[^\n]+$/);
  });

  it('rejects a file that is not JSON', () => {
    const path = writeFixtureFile('{ "patients": [ ');
    expect(() => loadHiFixtureFile(path)).toThrow(`HI fixture file ${path}: is not valid JSON`);
  });

  it('rejects a file that cannot be read', () => {
    const path = join(directory, 'missing.json');
    expect(() => loadHiFixtureFile(path)).toThrow(`HI fixture file ${path}: cannot be read`);
  });
});

describe('merging fixture sets', () => {
  it('keeps the records of earlier sets first', () => {
    const patient = givenPatient() as HiPatientFixture;
    const provider = givenProvider() as HiProviderFixture;
    const fromFile = { patients: [patient], providers: [provider] };
    const merged = mergeHiFixtures(fromFile, HI_DEMO_FIXTURES);
    expect(merged.patients).toStrictEqual([patient, ...HI_DEMO_FIXTURES.patients]);
    expect(merged.providers).toStrictEqual([provider, ...HI_DEMO_FIXTURES.providers]);
  });

  it('uses the demo set alone when no file is given', () => {
    expect(loadHiSandboxFixtures()).toStrictEqual(HI_DEMO_FIXTURES);
    expect(loadHiSandboxFixtures('')).toStrictEqual(HI_DEMO_FIXTURES);
  });

  it('puts the file records ahead of the demo set when a file is given', () => {
    const patient = givenPatient();
    const fixtures = loadHiSandboxFixtures(writeFixtureFile({ patients: [patient] }));
    expect(fixtures.patients).toStrictEqual([patient, ...HI_DEMO_FIXTURES.patients]);
    expect(fixtures.providers).toStrictEqual(HI_DEMO_FIXTURES.providers);
  });
});
