import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS, HI_DEMO_PROVIDERS, loadHiSandboxFixtures } from './hi-demo-fixtures.ts';
import type { HiPatientFixture } from './hi-fixture-file.ts';
import { createHiSandboxSimulator } from './hi-sandbox-simulator.ts';
import {
  buildIhiSearchRequest,
  buildProviderVerificationRequest,
  describeHiServiceContract,
} from '../../test/hi-service/hi-service-contract.ts';
import {
  HiServiceRejectedError,
  HiServiceUnreachableError,
  wireName,
  type HiServicePort,
  type IhiSearchPath,
  type IhiSearchRequest,
} from './hi-service-port.ts';

describeHiServiceContract('sandbox simulator', () =>
  createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES }),
);

const jessica = HI_DEMO_PATIENTS.activeVerified;
const ingrid = HI_DEMO_PATIENTS.internationalAddressOnly;
const demoSimulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES });
const NO_MATCH = { kind: 'no_match' };

function searchFor(
  record: HiPatientFixture,
  path: IhiSearchPath,
  changes: Partial<IhiSearchRequest> = {},
  simulator: HiServicePort = demoSimulator,
) {
  return simulator.searchIhi({ ...buildIhiSearchRequest(record, path), ...changes }, HI_CONTEXT);
}

async function expectFound(search: Promise<unknown>, record: HiPatientFixture = jessica) {
  await expect(search).resolves.toMatchObject({ kind: 'found', ihi_number: record.ihi_number });
}

function givenPatient(overrides: Partial<HiPatientFixture> = {}): HiPatientFixture {
  return {
    ihi_number: '8003608666670997',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Fixture',
    given_name: 'Fiona',
    date_of_birth: '1990-01-31',
    sex: 'F',
    ...overrides,
  };
}

const HI_CONTEXT = { hpio: '8003621566684455', userId: 'user-of-the-test' };

describe('sandbox simulator normalisation', () => {
  it.each(['+61412345678', '61412345678', '0412345678'])(
    'finds the mobile 0412345678 when searched as %s',
    async (phone) => {
      await expectFound(searchFor(jessica, 'mobile', { phone }));
    },
  );

  it('answers no_match for a phone that is not an Australian mobile', async () => {
    await expect(searchFor(jessica, 'mobile', { phone: '0312345678' })).resolves.toEqual(NO_MATCH);
  });

  it('compares numbers on their digits only', async () => {
    await expectFound(searchFor(jessica, 'ihi_number', { ihi_number: '8003 6012 4002 2579' }));
    const medicare = { medicare_card_number: '2950 14186 1', medicare_irn: ' 1 ' };
    await expectFound(searchFor(jessica, 'medicare', medicare));
  });

  it('requires the Medicare IRN to match as well as the card number', async () => {
    await expect(searchFor(jessica, 'medicare', { medicare_irn: '2' })).resolves.toEqual(NO_MATCH);
  });

  it('compares e-mail and DVA numbers case-insensitively', async () => {
    await expectFound(searchFor(jessica, 'email', { email: ' J.Wood@EXAMPLE.com' }));
    await expectFound(searchFor(jessica, 'dva', { dva_file_number: 'nx123456' }));
  });

  it('compares street address fields ignoring case and spaces', async () => {
    const australian_street_address = {
      street_number: ' 12',
      street_name: ' Smith St ',
      suburb: 'FITZROY',
      state: 'vic',
      postcode: '3065 ',
    };
    const search = searchFor(jessica, 'australian-street-address', { australian_street_address });
    await expectFound(search);
  });

  it.each(['street_number', 'street_name', 'suburb', 'state', 'postcode'] as const)(
    'requires the street address %s to match',
    async (field) => {
      const australian_street_address = { ...jessica.australian_street_address, [field]: '9' };
      const search = searchFor(jessica, 'australian-street-address', { australian_street_address });
      await expect(search).resolves.toEqual(NO_MATCH);
    },
  );

  it('compares names ignoring case and surrounding spaces', async () => {
    const { demographics } = buildIhiSearchRequest(jessica, 'email');
    await expectFound(
      searchFor(jessica, 'email', { demographics: { ...demographics, family_name: ' wOOD ' } }),
    );
  });
});

describe('sandbox simulator international addresses', () => {
  const searchIngrid = (international_address: IhiSearchRequest['international_address']) =>
    searchFor(ingrid, 'international-address', { international_address });

  it('ignores case and spaces in every part', async () => {
    const address = {
      address_line: '221b baker street',
      country: 'gb-eng',
      postcode: 'nw16xe',
      state_province: 'LONDON',
    };
    await expectFound(searchIngrid(address), ingrid);
  });

  it.each(['postcode', 'state_province'] as const)(
    'finds nothing for a request without the %s',
    async (field) => {
      const address = { ...ingrid.international_address, [field]: undefined };
      await expect(searchIngrid(address)).resolves.toEqual(NO_MATCH);
    },
  );

  it('finds nothing for a country without an HI Service code', async () => {
    await expect(searchIngrid({ ...ingrid.international_address, country: 'GB' })).resolves.toEqual(NO_MATCH);
  });

  it.each(['address_line', 'postcode', 'state_province', 'country'] as const)(
    'finds nothing when only the %s differs',
    async (field) => {
      const address = { ...ingrid.international_address, [field]: 'Elsewhere' };
      await expect(searchIngrid(address)).resolves.toEqual(NO_MATCH);
    },
  );
});

describe('sandbox simulator record order and faults', () => {
  it('answers with the first record whose identifier and demographics match', async () => {
    const override = { ...jessica, ihi_status: 'DECEASED' } satisfies HiPatientFixture;
    const simulator = createHiSandboxSimulator({
      fixtures: { patients: [override, ...HI_DEMO_FIXTURES.patients], providers: [] },
    });
    const search = searchFor(jessica, 'medicare', {}, simulator);
    await expect(search).resolves.toMatchObject({ ihi_status: 'DECEASED' });
  });

  it('tells apart records that share an identifier by their demographics', async () => {
    const sibling = givenPatient({ ...jessica, ihi_number: '8003608666670997', given_name: 'Jo' });
    const simulator = createHiSandboxSimulator({
      fixtures: { patients: [jessica, sibling], providers: [] },
    });
    await expectFound(searchFor(sibling, 'email', {}, simulator), sibling);
    await expectFound(searchFor(jessica, 'email', {}, simulator), jessica);
  });

  it('fails a search reaching an unreachable record even if the demographics differ', async () => {
    const { demographics } = buildIhiSearchRequest(HI_DEMO_PATIENTS.unreachable, 'ihi_number');
    const search = searchFor(HI_DEMO_PATIENTS.unreachable, 'ihi_number', {
      demographics: { ...demographics, family_name: 'Other' },
    });
    await expect(search).rejects.toThrow(HiServiceUnreachableError);
  });

  it('answers a provider no_match before looking at a no_status fault', async () => {
    const request = buildProviderVerificationRequest(HI_DEMO_PROVIDERS.withoutStatus, {
      given_name: 'Other',
    });
    await expect(demoSimulator.verifyProvider(request, HI_CONTEXT)).resolves.toEqual(NO_MATCH);
  });

  it('answers no_match from empty fixtures', async () => {
    const simulator = createHiSandboxSimulator({ fixtures: { patients: [], providers: [] } });
    await expect(searchFor(jessica, 'ihi_number', {}, simulator)).resolves.toEqual(NO_MATCH);
    const provider = buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified);
    await expect(simulator.verifyProvider(provider, HI_CONTEXT)).resolves.toEqual(NO_MATCH);
  });
});

describe('sandbox simulator with a fixture file', () => {
  const directory = mkdtempSync(join(tmpdir(), 'hi-sandbox-simulator-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('finds the file records and still the demo records', async () => {
    const fromFile = givenPatient({ email: 'fiona@example.net', ihi_status: 'RETIRED' });
    const path = join(directory, 'fixtures.json');
    writeFileSync(path, JSON.stringify({ patients: [fromFile] }));
    const simulator = createHiSandboxSimulator({ fixtures: loadHiSandboxFixtures(path) });
    const search = searchFor(fromFile, 'email', {}, simulator);
    await expect(search).resolves.toMatchObject({ ihi_status: 'RETIRED' });
    await expectFound(search, fromFile);
    await expectFound(searchFor(jessica, 'email', {}, simulator));
  });
});

describe('sandbox simulator latency', () => {
  const fixtures = HI_DEMO_FIXTURES;
  const provider = buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified);

  it('waits latencyMs through the injected sleep before every answer', async () => {
    const sleep = vi.fn(() => Promise.resolve());
    const simulator = createHiSandboxSimulator({ fixtures, latencyMs: 250, sleep });
    await searchFor(jessica, 'ihi_number', {}, simulator);
    await simulator.verifyProvider(provider, HI_CONTEXT);
    expect(sleep.mock.calls).toStrictEqual([[250], [250]]);
  });

  it('answers only after the sleep resolves', async () => {
    let wake = (): void => undefined;
    const sleep = vi.fn(() => new Promise<void>((resolve) => (wake = resolve)));
    const simulator = createHiSandboxSimulator({ fixtures, latencyMs: 100, sleep });
    let answered = false;
    const search = searchFor(jessica, 'ihi_number', {}, simulator).finally(() => {
      answered = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    wake();
    await expectFound(search);
    expect(answered).toBe(true);
  });

  it('never sleeps when latencyMs is 0 or absent', async () => {
    const sleep = vi.fn(() => Promise.resolve());
    for (const latencyMs of [0, undefined]) {
      const simulator = createHiSandboxSimulator({ fixtures, latencyMs, sleep });
      await searchFor(jessica, 'ihi_number', {}, simulator);
      await simulator.verifyProvider(provider, HI_CONTEXT);
    }
    expect(sleep).not.toHaveBeenCalled();
  });
});

describe('sandbox simulator rejections and inactive providers', () => {
  it('throws the rejection a record names, with its severity and code', async () => {
    const rejected = givenPatient({ email: 'fiona@example.net', fault: 'rejected', fault_severity: 'Fatal', fault_code: 'WSE0035' });
    const simulator = createHiSandboxSimulator({ fixtures: { patients: [rejected], providers: [] } });
    const search = searchFor(rejected, 'email', {}, simulator);
    await expect(search).rejects.toBeInstanceOf(HiServiceRejectedError);
    await expect(search).rejects.toMatchObject({ severity: 'Fatal', code: 'WSE0035' });
  });

  it('rejects with severity Error and the default code when the record names neither', async () => {
    const rejected = givenPatient({ email: 'fiona@example.net', fault: 'rejected' });
    const simulator = createHiSandboxSimulator({ fixtures: { patients: [rejected], providers: [] } });
    await expect(searchFor(rejected, 'email', {}, simulator)).rejects.toMatchObject({ severity: 'Error', code: 'HI_FIXTURE_REJECTED' });
  });

  it('answers inactive only for a deactivated or retired HPI-I, verified for an active one', async () => {
    const provider = { hpii_number: '8003610001647326', family_name: 'Fixture', given_name: 'Felix', date_of_birth: '1960-06-30', sex: 'M' } as const;
    for (const [hpii_status, kind] of [['active', 'verified'], ['deactivated', 'inactive'], ['retired', 'inactive']] as const) {
      const simulator = createHiSandboxSimulator({ fixtures: { patients: [], providers: [{ ...provider, hpii_status }] } });
      await expect(simulator.verifyProvider(buildProviderVerificationRequest(provider), HI_CONTEXT)).resolves.toEqual({ kind });
    }
  });
});

describe('sandbox simulator names on the wire', () => {
  it('cuts a name to its first 40 characters and leaves a shorter one alone', () => {
    expect(wireName('A'.repeat(45))).toBe('A'.repeat(40));
    expect(wireName('Wood')).toBe('Wood');
    expect(wireName(`${'é'.repeat(39)}😀xyz`)).toBe(`${'é'.repeat(39)}😀`);
  });

  it('finds a record whose 45-character family name shares its first 40 with the request', async () => {
    const longName = `${'Abcdefghij'.repeat(4)}Klmno`;
    const record = givenPatient({ email: 'long@example.net', family_name: longName });
    const simulator = createHiSandboxSimulator({ fixtures: { patients: [record], providers: [] } });
    const changed = { ...buildIhiSearchRequest(record, 'email').demographics, family_name: `${longName.slice(0, 40)}Zzzzz` };
    await expectFound(searchFor(record, 'email', { demographics: changed }, simulator), record);
  });
});

describe('sandbox simulator timeout and budget', () => {
  const provider = buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified);

  it('waits only its per-call timeout when the latency exceeds it, then fails as unreachable', async () => {
    const sleep = vi.fn((_ms: number) => Promise.resolve());
    const simulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs: 15_000, timeoutMs: 10_000, sleep });
    const search = searchFor(jessica, 'ihi_number', {}, simulator);
    await expect(search).rejects.toBeInstanceOf(HiServiceUnreachableError);
    await expect(search).rejects.not.toBeInstanceOf(HiServiceRejectedError);
    await expect(simulator.verifyProvider(provider, HI_CONTEXT)).rejects.toThrow('did not answer within 10000 ms');
    expect(sleep.mock.calls.map(([ms]) => ms)).toStrictEqual([10_000, 10_000]);
  });

  it('answers when the latency is within the timeout', async () => {
    const sleep = vi.fn(() => Promise.resolve());
    const simulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs: 10_000, timeoutMs: 10_000, sleep });
    await expectFound(searchFor(jessica, 'ihi_number', {}, simulator));
  });

  it('fails at once, without waiting, when the signal has already aborted', async () => {
    const sleep = vi.fn(() => Promise.resolve());
    const simulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs: 100, sleep });
    const signal = AbortSignal.abort();
    await expect(simulator.searchIhi(buildIhiSearchRequest(jessica, 'ihi_number'), { ...HI_CONTEXT, signal })).rejects.toThrow("time budget ran out");
    await expect(simulator.verifyProvider(provider, { ...HI_CONTEXT, signal })).rejects.toBeInstanceOf(HiServiceUnreachableError);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('stops waiting and fails when the signal aborts during the latency', async () => {
    const controller = new AbortController();
    const sleep = vi.fn(() => new Promise<void>(() => controller.abort()));
    const simulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs: 100, sleep });
    const search = simulator.searchIhi(buildIhiSearchRequest(jessica, 'ihi_number'), { ...HI_CONTEXT, signal: controller.signal });
    await expect(search).rejects.toBeInstanceOf(HiServiceUnreachableError);
  });
});
