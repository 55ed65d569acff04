// Safe retries: every POST that creates accepts an Idempotency-Key. The same key with the same
// request within 24 hours answers the first response again and does no work; another request
// under the key is a 422; a server error lets the key go; concurrent retries (on two instances
// on PostgreSQL) still make one resource.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { call, clientFor, givenClient, requestToken, type TestClient } from '../given.ts';
import { validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { patientBody } from '../patients/patients-given.ts';
import { createTestApp, TEST_DATABASE_URL, type TestApp } from '../test-app.ts';
import { givenClinic, helpersPath, prescribeBody, type Clinic } from '../prescriptions/prescriptions-given.ts';
import { providerDetails, TEST_PROVIDERS } from '../users/users-given.ts';

let t: TestApp;
let second: TestApp;
let c: Clinic;
let keyCounter = 0;

beforeAll(async () => {
  t = await createTestApp();
  second = TEST_DATABASE_URL ? await createTestApp({ sameDatabaseAs: t }) : t;
  c = await givenClinic(t);
});
afterAll(async () => {
  if (second !== t) await second.close();
  await t.close();
});

const newKey = () => `key-${process.pid}-${++keyCounter}-${Date.now()}`;
const withKey = (headers: Record<string, string>, key: string) => ({ ...headers, 'idempotency-key': key });

async function countRows(table: 'patients' | 'users' | 'custom_drugs' | 'prescriptions', organizationId = c.g.organizationId): Promise<number> {
  const rows = await t.deps.database.selectFrom(table).select('id').where('organization_id', '=', organizationId).execute();
  return rows.length;
}

interface CreateRoute {
  name: string;
  table: 'patients' | 'users' | 'custom_drugs' | 'prescriptions';
  send(key?: string, variant?: number): ReturnType<typeof call>;
  status: number;
}

const routes = (): CreateRoute[] => {
  const patient = patientBody(c.g, HI_DEMO_PATIENTS.activeVerified, { medicare_card_number: HI_DEMO_PATIENTS.activeVerified.medicare_card_number, medicare_irn: '1' });
  return [
    { name: 'create patient', table: 'patients', status: 201, send: (key, v = 0) => call(t, 'POST', c.patientsUrl(), key ? withKey(c.prescriber, key) : c.prescriber, { ...patient, partner_patient_id: `${patient.partner_patient_id}-${keyCounter}-${v}` }) },
    { name: 'create user', table: 'users', status: 201, send: (key, v = 0) => call(t, 'POST', c.usersUrl, key ? withKey(c.owner, key) : c.owner, { given_name: 'Rita', family_name: 'Retry', email: `rita.${keyCounter}.${v}@retry.example`, access_roles: ['receptionist'] }) },
    { name: 'bulk create drugs', table: 'custom_drugs', status: 200, send: (key, v = 0) => call(t, 'POST', c.catalogUrl, key ? withKey(c.owner, key) : c.owner, [validDrug({ custom_product_id: `BULK-${v}` })]) },
    { name: "create a prescriber's drug", table: 'custom_drugs', status: 201, send: (key, v = 0) => call(t, 'POST', c.userDrugsUrl(), key ? withKey(c.prescriber, key) : c.prescriber, validDrug({ custom_product_id: `OWN-${v}` })) },
    { name: 'prescribe (sandbox test helper)', table: 'prescriptions', status: 201, send: (key, v = 0) => call(t, 'POST', helpersPath(c), key ? withKey(c.headers, key) : c.headers, prescribeBody({ patient_instructions: `Take as directed ${v}` })) },
  ];
};

describe('Idempotency-Key on every create', () => {
  it('answers a retry with the first response, byte for byte, and creates nothing more', async () => {
    for (const route of routes()) {
      const key = newKey();
      const before = await countRows(route.table);
      const first = await route.send(key);
      expect(first.statusCode, `${route.name}: ${first.body}`).toBe(route.status);
      const retry = await route.send(key);
      expect(retry.statusCode, route.name).toBe(route.status);
      expect(retry.body, route.name).toBe(first.body);
      expect(retry.headers['idempotent-replayed'], route.name).toBe('true');
      expect(await countRows(route.table), route.name).toBe(before + 1);
      // Without a key the same create happens again: the header is what prevents it.
      expect((await route.send(undefined, 1)).statusCode, route.name).toBe(route.status);
      expect(await countRows(route.table), route.name).toBe(before + 2);
    }
  });

  it('records each retry answered again as a read of what the first request made (issue 38 item 4)', async () => {
    // What the replay's entry names, read from the first answer's data (a drug bulk names none).
    const resourceOf: Record<string, (data: any) => Record<string, unknown>> = {
      'create patient': (data) => ({ patient_id: data.platform_patient_id, prescription_scid: null, target_user_id: null }),
      'create user': (data) => ({ patient_id: null, target_user_id: data.user_id }),
      'bulk create drugs': () => ({ patient_id: null, target_user_id: null, detail: { endpoint: `POST /v1/organizations/:organization_id/custom-drugs` } }),
      "create a prescriber's drug": (data) => ({ patient_id: null, detail: { endpoint: expect.stringMatching(/^POST \/v1\//), subjectId: data.custom_drug_id } }),
      'prescribe (sandbox test helper)': (data) => ({ patient_id: c.patientId, prescription_scid: data.scid, detail: { endpoint: expect.any(String), subjectId: data.legal_metadata.prescription_id } }),
    };
    for (const route of routes()) {
      const key = newKey();
      const first = await route.send(key);
      expect(first.statusCode, `${route.name}: ${first.body}`).toBe(route.status);
      const seq = await lastAuditSeq(t);
      expect((await route.send(key)).headers['idempotent-replayed'], route.name).toBe('true');
      const replays = (await auditEntriesAfter(t, seq)).filter((e) => e.action === 'api.create_replayed');
      expect(replays, route.name).toHaveLength(1);
      expect(replays[0], route.name).toMatchObject({ outcome: 'success', actor_kind: 'user', organization_id: c.g.organizationId, ...resourceOf[route.name]!(first.json().data) });
    }
    // A first request needs no entry of this kind: only the answer given again is.
    const seq = await lastAuditSeq(t);
    await routes()[0]!.send(newKey(), 7);
    expect((await auditEntriesAfter(t, seq)).filter((e) => e.action === 'api.create_replayed')).toEqual([]);
  });

  it('refuses the same key with a different request: 422 naming the header, nothing created', async () => {
    for (const route of routes()) {
      const key = newKey();
      expect((await route.send(key, 0)).statusCode).toBe(route.status);
      const before = await countRows(route.table);
      const other = await route.send(key, 1);
      expect(other.statusCode, route.name).toBe(422);
      expect(other.json().error.validation).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('different request'), code: 'VALIDATION_ERROR' }]);
      expect(await countRows(route.table)).toBe(before);
    }
  });

  it('keeps a key 24 hours, per partner and organization', async () => {
    const key = newKey();
    const create = (client: TestClient) => call(t, 'POST', client.userDrugsUrl(), withKey(client.prescriber, key), validDrug({ custom_product_id: 'DAY' }));
    expect((await create(c)).statusCode).toBe(201);
    const before = await countRows('custom_drugs');
    // Tokens live an hour: a client coming back a day later asks for new ones.
    const later = async (seconds: number) => {
      t.clock.advanceSeconds(seconds);
      return clientFor(t, c.g, await requestToken(t, c.g));
    };
    try {
      expect((await create(await later(24 * 3600 - 1))).headers['idempotent-replayed']).toBe('true');
      const after = await create(await later(2));
      expect(after.statusCode).toBe(201);
      expect(after.headers['idempotent-replayed']).toBeUndefined();
      expect(await countRows('custom_drugs')).toBe(before + 1);
    } finally {
      t.clock.advanceSeconds(-(24 * 3600 + 1));
    }
    const theirs = await create(await givenClient(t));
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('lets the key go after a server error, so the retry does the work', async () => {
    const body = patientBody(c.g, HI_DEMO_PATIENTS.unreachable, { ihi_number: HI_DEMO_PATIENTS.unreachable.ihi_number });
    const key = newKey();
    const failed = await call(t, 'POST', c.patientsUrl(), withKey(c.prescriber, key), body);
    expect(failed.statusCode).toBe(503);
    const searches = t.hi.searches.length;
    const retried = await call(t, 'POST', c.patientsUrl(), withKey(c.prescriber, key), body);
    expect(retried.statusCode).toBe(503);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(t.hi.searches.length).toBeGreaterThan(searches);
  });

  it('refuses a key that is not 1 to 255 visible characters', async () => {
    for (const key of ['x'.repeat(256), 'with space', 'é']) {
      const response = await call(t, 'POST', c.userDrugsUrl(), withKey(c.prescriber, key), validDrug());
      expect(response.statusCode).toBe(422);
      expect(response.json().error.validation[0].field).toBe('Idempotency-Key');
    }
  });

  it(`makes one resource when a retry arrives while the first is still running${TEST_DATABASE_URL ? ', on another instance' : ''}`, async () => {
    const key = newKey();
    const email = `racing.${Date.now()}@retry.example`;
    // Priya: the clinic's prescriber holds Anna's HPI-I already, so Anna would need no lookup.
    const { given_name, family_name, ...details } = providerDetails(TEST_PROVIDERS.priya);
    const body = { given_name, family_name, email, access_roles: ['provider'], ...details };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let lookupStarted!: () => void;
    const started = new Promise<void>((resolve) => (lookupStarted = resolve));
    t.hi.duringLookup = async () => {
      lookupStarted();
      await held;
    };
    // The retry's first wait: it has found the key taken by a request still running.
    const idempotency = second.features.idempotency;
    const wait = idempotency.waitForFirst;
    let retryWaits!: () => void;
    const retryWaiting = new Promise<void>((resolve) => (retryWaits = resolve));
    idempotency.waitForFirst = (ms) => {
      retryWaits();
      return wait(ms);
    };
    try {
      const first = call(t, 'POST', c.usersUrl, withKey(c.owner, key), body);
      await started;
      const retry = call(second, 'POST', c.usersUrl, withKey(c.owner, key), body);
      await retryWaiting;
      release();
      const [a, b] = await Promise.all([first, retry]);
      expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
      expect(b.body).toBe(a.body);
      expect(b.headers['idempotent-replayed']).toBe('true');
      const users = await t.deps.database.selectFrom('users').select('id').where('email', '=', email).execute();
      expect(users).toHaveLength(1);
    } finally {
      t.hi.duringLookup = undefined;
      idempotency.waitForFirst = wait;
    }
  });
});
