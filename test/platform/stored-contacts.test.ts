// What the database holds of where a token goes and of what a draft, a patient's record or a
// prescriber's says (issue 38 item 1): no token link, no token page key, no phone or e-mail a
// token went to or may go to, no draft body, no concession or entitlement number, no HPI-I in clear. Each test reads the raw rows and looks for the
// value in clear, then shows the feature still working from what is stored.
import { describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { DEMO_PRESCRIBER_DETAILS } from '../../src/onboarding/sandbox-seed.ts';
import { hashClearTokenPageKeys, sealClearValues } from '../../src/platform/db/sealed-columns.ts';
import { listTokenMessages } from '../../src/token-delivery/index.ts';
import { call, useTestApp } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import { draftPath, prepareDraftAs, sessionWithRoles } from '../portal/approval-given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPrescription, prescriptionsClient, prescriptionsPath, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';

/** Where the patients table keeps the phone and e-mail. */
const PATIENT_CONTACT_COLUMNS = ['phone_encrypted', 'email_encrypted'] as const;

const { t, c } = useTestApp({}, async (app) => ({ c: await givenClinic(app) }));

/** Every value of every row of `table`, as one text to search. */
async function rawText(table: 'token_messages' | 'prescriptions' | 'prescription_drafts' | 'patients' | 'provider_records'): Promise<string> {
  return JSON.stringify(await t.deps.database.selectFrom(table).selectAll().execute());
}

/** The clinic's patient's phone, as the API shows it. */
async function phoneOf(app: TestApp, clinic: Clinic): Promise<string> {
  const read = await call(app, 'GET', `${clinic.patientsUrl()}/${clinic.patientId}`, clinic.headers);
  return read.json().data.phone as string;
}

/** What every process does when it starts (runtime.ts): values an older erx kept in clear sealed, its clear token page keys hashed. */
async function runStartupSealing(): Promise<void> {
  await sealClearValues(t.deps.database, t.deps.secretKey);
  await hashClearTokenPageKeys(t.deps.database, t.deps.secretKey);
}

/** The token page each text value of a prescription's row opens, if any: what someone with the database alone would try. */
async function pagesOpenedByRowOf(scid: string): Promise<string[]> {
  const row = await t.deps.database.selectFrom('prescriptions').selectAll().where('scid', '=', scid).executeTakeFirstOrThrow();
  const opened: string[] = [];
  for (const value of Object.values(row)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value)) continue;
    if ((await t.app.inject({ method: 'GET', url: `/tokens/${value}` })).statusCode === 200) opened.push(value);
  }
  return opened;
}

describe('a token message', () => {
  it('holds neither the token link nor its destination in clear; the list shows the destination masked', async () => {
    const phone = await phoneOf(t, c);
    const prescription = await givenPrescription(t, c);
    const key = prescription.url.split('/tokens/')[1]!;
    const { id } = await t.deps.database.selectFrom('prescriptions').select('id').where('scid', '=', prescription.scid).executeTakeFirstOrThrow();
    const raw = await rawText('token_messages');
    expect(raw).toContain(id);
    for (const clear of [key, '/tokens/', phone, phone.slice(-8)]) expect(raw).not.toContain(clear);
    const [listed] = await listTokenMessages(t.features.tokenDelivery, { prescriptionId: id });
    expect(listed!.destination).toBe(`***${phone.slice(-3)}`);
  });
});

describe("a prescription's delivery destination", () => {
  it('is not stored in clear, and the prescription still shows it', async () => {
    const phone = await phoneOf(t, c);
    const prescription = await givenPrescription(t, c);
    expect(await rawText('prescriptions')).not.toContain(phone.slice(-8));
    const read = await call(t, 'GET', `${prescriptionsPath(c)}/${prescription.scid}`, c.headers);
    expect(read.statusCode).toBe(200);
    expect(read.json().data.prescription.delivery).toMatchObject({ method: 'SMS', recipient_type: 'PATIENT', destination: phone });
  });
});

describe("a draft's body", () => {
  it("is not stored in clear, and the draft's page still shows it", async () => {
    const manager = await sessionWithRoles(t, c, ['rx_queue_manager']);
    const instructions = 'Two capsules at night, kept from the database';
    const draftId = await prepareDraftAs(manager, c, c.g.userId, { patient_instructions: instructions });
    const raw = await rawText('prescription_drafts');
    expect(raw).toContain(draftId);
    for (const clear of [instructions, 'patient_instructions', 'recipient_type']) expect(raw).not.toContain(clear);
    const page = await manager.get(draftPath(draftId));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(instructions);
  });
});

describe("a patient's concession and entitlement numbers", () => {
  it('are not stored in clear, and the patient still shows them', async () => {
    const identifiers = { concession_pension_number: 'CP-4455667', entitlement_number: 'EN-9988776' };
    const person = HI_DEMO_PATIENTS.activeVerified;
    const body = patientBody(c.g, person, { medicare_card_number: person.medicare_card_number, medicare_irn: '1', ...identifiers });
    const created = await call(t, 'POST', c.patientsUrl(), c.headers, body);
    expect(created.statusCode, created.body).toBe(201);
    const patientId = created.json().data.platform_patient_id as string;
    const raw = await rawText('patients');
    expect(raw).toContain(patientId);
    for (const clear of Object.values(identifiers)) expect(raw).not.toContain(clear);
    const read = await call(t, 'GET', `${c.patientsUrl()}/${patientId}`, c.headers);
    expect(read.statusCode).toBe(200);
    expect(JSON.stringify(read.json())).toContain('CP-4455667');
    expect(JSON.stringify(read.json())).toContain('EN-9988776');
  });
});

describe("a prescriber's HPI-I", () => {
  it('is in clear in neither the provider record nor the prescription, and the user and the prescription still show it', async () => {
    const hpii = DEMO_PRESCRIBER_DETAILS.hpii_number;
    const prescription = await givenPrescription(t, c);
    expect(await rawText('provider_records')).not.toContain(hpii);
    expect(await rawText('prescriptions')).not.toContain(hpii);
    const user = await call(t, 'GET', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}`, c.headers);
    expect(user.statusCode).toBe(200);
    expect(JSON.stringify(user.json())).toContain(hpii);
    const read = await call(t, 'GET', `${prescriptionsPath(c)}/${prescription.scid}`, c.headers);
    expect(read.json().data.prescription.legal_metadata.prescriber_hpii).toBe(hpii);
  });
});

describe("a patient's phone and e-mail", () => {
  it('are not stored in clear, and the patient, the portal form and the token still reach them', async () => {
    const { phone, email } = HI_DEMO_PATIENTS.activeVerified;
    const raw = await rawText('patients');
    expect(raw).toContain(c.patientId);
    for (const clear of [phone, phone.slice(-8), email]) expect(raw).not.toContain(clear);
    const read = await call(t, 'GET', `${c.patientsUrl()}/${c.patientId}`, c.headers);
    expect(read.json().data).toMatchObject({ phone, email });
    const path = `/embed/patients/${c.patientId}/prescriptions`;
    const form = await (await signIn(t, c.g, path)).get(path);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(`Patient by SMS (${phone})`);
    expect(form.body).toContain(`Patient by e-mail (${email})`);
    const prescription = await givenPrescription(t, c, { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } });
    const sent = await call(t, 'GET', `${prescriptionsPath(c)}/${prescription.scid}`, c.headers);
    expect(sent.json().data.prescription.delivery).toMatchObject({ method: 'EMAIL', destination: email });
  });

  it('kept in clear by an older erx are sealed when a process starts, and still read', async () => {
    const { phone, email } = HI_DEMO_PATIENTS.activeVerified;
    const patients = t.deps.database as unknown as Kysely<any>;
    const [phoneColumn, emailColumn] = PATIENT_CONTACT_COLUMNS;
    await patients.updateTable('patients').set({ [phoneColumn]: phone, [emailColumn]: email }).where('id', '=', c.patientId).execute();
    await runStartupSealing();
    const raw = await rawText('patients');
    for (const clear of [phone.slice(-8), email]) expect(raw).not.toContain(clear);
    const read = await call(t, 'GET', `${c.patientsUrl()}/${c.patientId}`, c.headers);
    expect(read.json().data).toMatchObject({ phone, email });
  });
});

describe("a token page's key", () => {
  it('of a prescription made now: no value of its row opens its page, its link does', async () => {
    const prescription = await givenPrescription(t, c);
    expect(await pagesOpenedByRowOf(prescription.scid)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: new URL(prescription.url).pathname })).statusCode).toBe(200);
  });

  it('kept in clear by an older erx: once a process started, no value of its row opens its page; its link and its reissue still do', async () => {
    const prescription = await givenPrescription(t, c);
    const olderKey = 'OlderErxKeyInClear_0a1';
    await t.deps.database.updateTable('prescriptions').set({ token: olderKey }).where('scid', '=', prescription.scid).execute();
    await runStartupSealing();
    expect(await pagesOpenedByRowOf(prescription.scid)).toEqual([]);
    expect(JSON.stringify(await t.deps.database.selectFrom('prescriptions').selectAll().where('scid', '=', prescription.scid).execute())).not.toContain(olderKey);
    expect((await t.app.inject({ method: 'GET', url: `/tokens/${olderKey}` })).statusCode).toBe(200);
    const reissued = await prescriptionsClient(t, c).change('reissue', prescription.scid);
    expect(reissued.statusCode).toBe(200);
    expect(reissued.json().data.url).toMatch(new RegExp(`/tokens/${olderKey}$`));
  });
});
