// The "done when": ERX_MODE=production with ERX_HI=soap and its settings starts
// (assembleDeps, buildApp), and the precheck, create patient and create user run through the
// SOAP adapter over mutual TLS against the protocol-level fake HI Service, with every outcome of
// the spec's precheck table and each create-user code. The fake refuses any protocol violation,
// so none may be left; no identifier or demographic may reach the logs.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/deps.ts';
import { buildFeatures } from '../../src/features.ts';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { spkiPinOf } from '../../src/hi-service/soap/hi-xml-signature.ts';
import { mergeHiFixtures, type HiPatientFixture, type HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { call, givenClient, type TestClient } from '../given.ts';
import { DEMO, medicareOf, patientBody } from '../patients/patients-given.ts';
import { productionEnv } from '../prescriptions/prescriptions-given.ts';
import { TEST_PROVIDERS } from '../recording-hi-service.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { providerDetails } from '../users/users-given.ts';
import { startFakeHiService, type FakeHiService } from './fake-hi-service/index.ts';
import { createTestPki } from './test-pki.ts';

const directory = mkdtempSync(join(tmpdir(), 'erx-hi-e2e-'));
const fixtures = mergeHiFixtures({ patients: [], providers: Object.values(TEST_PROVIDERS) }, HI_DEMO_FIXTURES);

let fake: FakeHiService;
let started: Deps;
let startedApp: Awaited<ReturnType<typeof buildApp>>;
let t: TestApp;
let api: TestClient;
const startLogs: string[] = [];

function soapEnv(pki: ReturnType<typeof createTestPki>): Record<string, string> {
  const certPath = join(directory, 'nash.p12');
  const caPath = join(directory, 'hi-ca.pem');
  writeFileSync(certPath, pki.nash.pfx);
  writeFileSync(caPath, pki.ca.certPem);
  return {
    ...productionEnv(),
    ERX_DATA_DIR: directory,
    ERX_HI: 'soap',
    ERX_HI_ENDPOINT: fake.url,
    ERX_HI_CERT: certPath,
    ERX_HI_CERT_PASSPHRASE: pki.nash.passphrase,
    ERX_HI_CA: caPath,
    ERX_HI_SIGNER_SPKI: spkiPinOf(new X509Certificate(pki.hiSigner.certPem)),
    ERX_HI_VENDOR_QUALIFIER: 'http://ns.electronichealth.net.au/id/hi/vendorid/1.0',
    ERX_HI_VENDOR_ID: 'ERX00001',
    ERX_HI_PRODUCT_NAME: 'erx',
    ERX_HI_PRODUCT_VERSION: '1.0.0',
  };
}

beforeAll(async () => {
  const pki = createTestPki();
  fake = await startFakeHiService({ fixtures, pki });
  const env = soapEnv(pki);
  const sink = new Writable({ write: (chunk, _encoding, done) => (startLogs.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  // The production start itself: the configuration, the NASH certificate, the adapter, the app.
  started = await assembleDeps(loadConfig({ ...env, LOG_LEVEL: 'info' }), { serving: true, logDestination: sink });
  startedApp = await buildApp(started, buildFeatures(started));
  await startedApp.ready();
  // The API on the test database, asking the HI Service the production start assembled.
  t = await createTestApp({ env, hiService: started.hiService });
  api = await givenClient(t);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await startedApp?.close();
  if (started) await closeDeps(started);
  await fake?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('production with ERX_HI=soap', () => {
  it('starts and answers its health check', async () => {
    expect(started.config).toMatchObject({ mode: 'production', hiAdapter: 'soap' });
    const health = await startedApp.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(startLogs.filter((line) => JSON.parse(line).level >= 40)).toEqual([]);
  });
});

async function precheck(person: HiPatientFixture, identifiers: Record<string, unknown>, client = api) {
  const response = await client.precheck(patientBody(client.g, person, identifiers));
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

const wood = DEMO.activeVerified;
const PATH_IDENTIFIERS: Array<[string, Record<string, unknown>]> = [
  ['ihi_number', { ihi_number: wood.ihi_number }],
  ['medicare', medicareOf(wood)],
  ['dva', { dva_file_number: wood.dva_file_number }],
  ['mobile', { phone: wood.phone }],
  ['email', { email: wood.email }],
  ['australian-street-address', { australian_street_address: wood.australian_street_address }],
  ['international-address', { international_address: wood.international_address }],
];

describe('the precheck through the adapter and the fake, every outcome of the spec', () => {
  it.each(PATH_IDENTIFIERS)('ihi_found on path %s', async (path, identifiers) => {
    expect(await precheck(wood, identifiers)).toEqual({
      outcome: 'ihi_found',
      create_would_succeed: true,
      ihi_check_passed: true,
      searched_path: path,
      ihi_status: 'ACTIVE',
      ihi_record_status: 'VERIFIED',
    });
  });

  it.each([
    ['DECEASED', DEMO.deceasedVerified, { create_would_succeed: true, ihi_check_passed: false, ihi_status: 'DECEASED', ihi_record_status: 'VERIFIED' }],
    ['PROVISIONAL', DEMO.activeProvisional, { create_would_succeed: false, ihi_check_passed: false, ihi_status: 'ACTIVE', ihi_record_status: 'PROVISIONAL' }],
    ['no status', DEMO.withoutStatus, { create_would_succeed: false, ihi_check_passed: false }],
  ] as const)('ihi_found %s', async (_case, person, expected) => {
    const data = await precheck(person, medicareOf(person));
    expect(data).toMatchObject({ outcome: 'ihi_found', searched_path: 'medicare', ...expected });
  });

  it('ihi_found for a family name over 40 characters, sent cut to 40', async () => {
    const hubert = DEMO.longName;
    expect(await precheck({ ...hubert, family_name: `${hubert.family_name}ternw` }, medicareOf(hubert))).toMatchObject({ outcome: 'ihi_found' });
  });

  it('no_match after falling through every path', async () => {
    const data = await precheck({ ...wood, given_name: 'Jess' }, { ...medicareOf(wood), email: wood.email });
    expect(data).toEqual({ outcome: 'no_match', create_would_succeed: true, ihi_check_passed: false, searched_path: 'email', failed_paths: ['medicare'] });
  });

  it('insufficient_data without an identifier', async () => {
    expect(await precheck(wood, {})).toMatchObject({ outcome: 'insufficient_data', create_would_succeed: false });
  });

  it('already_exists, with the live check through the adapter', async () => {
    const body = patientBody(api.g, wood, medicareOf(wood));
    expect((await api.create(body)).statusCode).toBe(201);
    const response = await api.precheck(body);
    expect(response.json().data).toMatchObject({ outcome: 'already_exists', create_would_succeed: true, ihi_check_passed: true, has_ihi: true });
  });

  it('organization_not_ready without an HPI-O', async () => {
    const notReady = await givenClient(t, { hpio: null });
    expect(await precheck(wood, medicareOf(wood), notReady)).toEqual({ outcome: 'organization_not_ready', create_would_succeed: false });
  });

  it.each([
    ['unreachable (HTTP 503)', HI_DEMO_PATIENTS.unreachable],
    ['refusing (an Error fault)', HI_DEMO_PATIENTS.rejected],
  ])('hi_service_error when the service is %s; create answers 503', async (_case, person) => {
    expect(await precheck(person, medicareOf(person))).toEqual({ outcome: 'hi_service_error', create_would_succeed: false, searched_path: 'medicare' });
    const created = await api.create(patientBody(api.g, person, medicareOf(person)));
    expect(created.statusCode).toBe(503);
  });
});

describe('create user through the adapter and the fake', () => {
  function userBody(person: Omit<HiProviderFixture, 'fault'>, overrides: Record<string, unknown> = {}) {
    const { given_name, family_name, ...details } = providerDetails(person, overrides);
    return { given_name, family_name, email: `e2e.${process.pid}.${Math.random().toString(36).slice(2)}@clinic.example`, access_roles: ['provider'], ...details };
  }
  const createUser = (client: TestClient, body: unknown) => call(t, 'POST', client.usersUrl, client.owner, body);

  it('USER_CREATED for a verified provider, then USER_CREATED_PROVIDER_ALREADY_EXISTS for the same HPI-I', async () => {
    const client = await givenClient(t);
    expect((await createUser(client, userBody(TEST_PROVIDERS.fred))).json().code).toBe('USER_CREATED');
    expect((await createUser(client, userBody(TEST_PROVIDERS.fred))).json().code).toBe('USER_CREATED_PROVIDER_ALREADY_EXISTS');
  });

  it.each([
    ['no match', HI_DEMO_PROVIDERS.verified, { sex: 'M' }],
    ['no status', HI_DEMO_PROVIDERS.withoutStatus, {}],
    ['a deactivated HPI-I', HI_DEMO_PROVIDERS.deactivated, {}],
    ['a retired HPI-I', HI_DEMO_PROVIDERS.retired, {}],
  ] as const)('USER_CREATED_PROVIDER_NOT_FOUND for %s', async (_case, person, overrides) => {
    const response = await createUser(api, userBody(person, overrides));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().code).toBe('USER_CREATED_PROVIDER_NOT_FOUND');
  });

  it.each([
    ['unreachable', HI_DEMO_PROVIDERS.unreachable],
    ['refusing', HI_DEMO_PROVIDERS.rejected],
  ])('500 when the service is %s, no user created', async (_case, person) => {
    const response = await createUser(api, userBody(person));
    expect(response.statusCode).toBe(500);
  });
});

describe('what the fake saw', () => {
  it('no protocol violation, the HPI-O and acting user on every message, nothing identifying in the logs', () => {
    expect(fake.violations()).toEqual([]);
    expect(fake.received.length).toBeGreaterThan(20);
    expect(new Set(fake.received.map((seen) => seen.hpio))).toEqual(new Set([DEMO_HPIO]));
    expect(fake.received.map((seen) => seen.userId)).toContain(api.g.userId);
    for (const seen of fake.received) expect(seen.userId).toMatch(/\S/);
    const logs = [...startLogs, ...t.logs].join('\n');
    for (const value of [wood.ihi_number, wood.medicare_card_number, wood.family_name, wood.email!, HI_DEMO_PROVIDERS.verified.hpii_number]) {
      expect(logs).not.toContain(value);
    }
  });
});
