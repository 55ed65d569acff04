// What the database holds of the secrets a request presents or a response carries: the token
// page's key only as a hash, each portal session's CSRF secret and every stored idempotent
// response only encrypted under the secret key. Each test reads the raw rows and looks for
// the value in clear, then shows the feature still working from what is stored.
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { hashClearTokenPageKeys } from '../../src/platform/db/sealed-columns.ts';
import { decryptSecret, hashSecret } from '../../src/platform/secrets.ts';
import { call, useTestApp } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import { csrfOf, signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPrescription, storedPrescription, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';

const { t, c } = useTestApp({}, async (app) => ({ c: await givenClinic(app) }));

/** Every value of every row of `table`, as one text to search. */
async function rawText(table: 'prescriptions' | 'portal_sessions' | 'idempotency_keys'): Promise<string> {
  const rows = await t.deps.database.selectFrom(table).selectAll().execute();
  return JSON.stringify(rows);
}

describe('the token page key', () => {
  it('is stored only as its SHA-256, and the page opens by the key in the prescription url', async () => {
    const prescription = await givenPrescription(t, c);
    const key = prescription.url.split('/tokens/')[1]!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await rawText('prescriptions')).not.toContain(key);
    expect((await storedPrescription(t, prescription.scid))!.token).toBe(hashSecret(key));
    const page = await t.app.inject({ method: 'GET', url: `/tokens/${key}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(prescription.scid);
    // The stored hash is not a key: presented as one it opens nothing.
    expect((await t.app.inject({ method: 'GET', url: `/tokens/${hashSecret(key)}` })).statusCode).toBe(404);
  });

  it('of a prescription made before keys were hashed (kept in clear, hashed by the startup step since) still works, at the same address', async () => {
    const prescription = await givenPrescription(t, c);
    const legacyKey = 'LegacyKeyInClear_0123a';
    await t.deps.database.updateTable('prescriptions').set({ token: legacyKey }).where('scid', '=', prescription.scid).execute();
    expect(await hashClearTokenPageKeys(t.deps.database, t.deps.secretKey)).toBe(1);
    expect((await storedPrescription(t, prescription.scid))!.token).toBe(hashSecret(legacyKey));
    const read = await call(t, 'GET', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}/prescriptions/${prescription.scid}`, c.headers);
    expect(read.json().data.prescription.url).toMatch(new RegExp(`/tokens/${legacyKey}$`));
    expect((await t.app.inject({ method: 'GET', url: `/tokens/${legacyKey}` })).statusCode).toBe(200);
  });
});

describe("a portal session's CSRF secret", () => {
  it('is stored encrypted, and the forms of the session still work', async () => {
    const session = await signIn(t, c.g);
    const rows = await t.deps.database.selectFrom('portal_sessions').select(['session_hash', 'csrf_secret']).execute();
    const row = rows.find((r) => r.session_hash === hashSecret(session.cookie.split('=')[1]!))!;
    const secret = decryptSecret(row.csrf_secret, t.deps.secretKey);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(await rawText('portal_sessions')).not.toContain(secret);
    const signOut = await session.post('/auth/sign-out', { _csrf: csrfOf((await session.get('/dashboard')).body) });
    expect(signOut.statusCode).toBe(200);
  });

  it('kept in clear (a session opened before secrets were encrypted) ends the session', async () => {
    const session = await signIn(t, c.g);
    const sessionHash = hashSecret(session.cookie.split('=')[1]!);
    const { csrf_secret } = await t.deps.database.selectFrom('portal_sessions').select('csrf_secret').where('session_hash', '=', sessionHash).executeTakeFirstOrThrow();
    await t.deps.database.updateTable('portal_sessions').set({ csrf_secret: decryptSecret(csrf_secret, t.deps.secretKey) }).where('session_hash', '=', sessionHash).execute();
    const page = await session.get('/dashboard');
    expect(page.statusCode).toBe(401);
    expect(String(page.headers['set-cookie'])).toMatch(/^erx_portal_session=; Max-Age=0/);
    expect(await t.deps.database.selectFrom('portal_sessions').select('session_hash').where('session_hash', '=', sessionHash).executeTakeFirst()).toBeUndefined();
  });
});

describe('a stored idempotent response', () => {
  it("is stored encrypted (it holds the patient's details), and a retry still answers it", async () => {
    const person = HI_DEMO_PATIENTS.activeVerified;
    const body = patientBody(c.g, person, { medicare_card_number: person.medicare_card_number, medicare_irn: '1', phone: '+61412340987' });
    const headers = { ...c.headers, 'idempotency-key': `stored-secrets-${Date.now()}` };
    const first = await call(t, 'POST', c.patientsUrl(), headers, body);
    expect(first.statusCode).toBe(201);
    const patientId = first.json().data.platform_patient_id as string;
    const raw = await rawText('idempotency_keys');
    expect(raw).toContain(headers['idempotency-key']);
    for (const clear of [patientId, body.partner_patient_id as string, 'Patient created successfully']) expect(raw).not.toContain(clear);
    const retry = await call(t, 'POST', c.patientsUrl(), headers, body);
    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
  });
});
