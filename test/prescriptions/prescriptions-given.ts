// Factories for the prescription tests: a clinic (the tests' client, whose prescriber is made
// ready to prescribe through update user, as a partner would, with a patient) and the calls of
// the prescription, patient and test helper routes. Everything is created through the API.
import { importPbsSchedule, SANDBOX_PBS_SCHEDULE } from '../../src/medicines/index.ts';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { generateSigningKeyPem } from '../../src/platform/signing-keys.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { type HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { DEMO_PRESCRIBER_DETAILS } from '../../src/onboarding/sandbox-seed.ts';
import { call, givenClient, givenUser, type TestClient } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import type { TestApp } from '../test-app.ts';
import { TEST_PROVIDERS } from '../users/users-given.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The settings production mode insists on, with real values (createTestApp signs with its own key either way). */
export function productionEnv(): Record<string, string> {
  return { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: generateSigningKeyPem(), ERX_SECRET_KEY: randomBytes(32).toString('base64'), ERX_CONFORMANCE_ID: 'ERX-TEST-CONFORMANCE-0001' };
}

/** Sends to an API path, under the app's base path if it has one. */
export function send(t: TestApp, method: Method, path: string, headers: Record<string, string>, payload?: unknown): Promise<LightMyRequestResponse> {
  return call(t, method, `${t.deps.config.basePath}${path}`, headers, payload);
}

/** The tests' client of an organization whose prescriber can prescribe, with a patient. */
export interface Clinic extends TestClient {
  /** The prescriber's bearer headers (token with every scope the server's mode offers). */
  headers: Record<string, string>;
  /** A patient with a mobile number and an e-mail address. */
  patientId: string;
  partnerPatientId: string;
}

/** A verified provider's details (Anna Smith by default), with the prescriber fields a medical practitioner needs. */
export function prescriberDetails(person: Omit<HiProviderFixture, 'fault'> = DEMO_PRESCRIBER_DETAILS) {
  return { ...DEMO_PRESCRIBER_DETAILS, ...person };
}

/** Makes `userId` ready to prescribe through update user (the HI simulator verifies the identity). */
export async function makeReadyToPrescribe(t: TestApp, c: Pick<Clinic, 'g' | 'headers'>, userId: string, person?: Omit<HiProviderFixture, 'fault'>) {
  const response = await send(t, 'PUT', `/v1/organizations/${c.g.organizationId}/users/${userId}`, c.headers, { provider_details: prescriberDetails(person) });
  if (response.statusCode !== 200) throw new Error(`update user failed: ${response.statusCode} ${response.body}`);
}

/** A new patient of the clinic (demo identity Jessica Wood under a fresh partner_patient_id); returns its ids. */
export async function givenPatient(t: TestApp, c: Pick<Clinic, 'g' | 'headers'>, extra: Record<string, unknown> = {}) {
  const wood = HI_DEMO_PATIENTS.activeVerified;
  const body = patientBody(c.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn, phone: wood.phone, email: wood.email, ...extra });
  const response = await send(t, 'POST', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients`, c.headers, body);
  if (response.statusCode !== 201) throw new Error(`create patient failed: ${response.statusCode} ${response.body}`);
  return { patientId: response.json().data.platform_patient_id as string, partnerPatientId: body.partner_patient_id };
}

/** A fresh organization whose prescriber can prescribe, validated by its partner unless `validated: false`, with a patient. */
export async function givenClinic(
  t: TestApp,
  options: { validated?: boolean; partner?: { partner_id: string; partner_secret: string }; practice?: null } = {},
): Promise<Clinic> {
  const client = await givenClient(t, { ...(options.partner ? { partner: options.partner } : {}), ...(options.practice === null ? { practice: null } : {}) });
  const { g, prescriber: headers } = client;
  await makeReadyToPrescribe(t, { g, headers }, g.userId);
  // The medicines the sandbox ships, as `erx sandbox seed` loads them (the same schedule again changes nothing).
  await importPbsSchedule(t.features.medicines, SANDBOX_PBS_SCHEDULE);
  if (options.validated !== false) {
    const validated = await send(t, 'GET', `/v1/organizations/${g.organizationId}/validate`, headers);
    if (validated.statusCode !== 200) throw new Error(`validate failed: ${validated.body}`);
  }
  return { ...client, headers, ...(await givenPatient(t, { g, headers })) };
}

/** A second prescriber in the clinic (Fred Citizen), ready to prescribe. */
export async function givenSecondPrescriber(t: TestApp, c: Clinic): Promise<string> {
  const user = await givenUser(t, c.g.organizationId, ['provider']);
  // Another user's details: the owner sends them (a prescriber may update only their own).
  await makeReadyToPrescribe(t, { g: c.g, headers: c.owner }, user.user_id, TEST_PROVIDERS.fred);
  return user.user_id;
}

/** A prescription written in full, sent by SMS to the patient. */
export function prescribeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    item_name: 'Amoxicillin',
    item_strength: '500 mg',
    item_form: 'Capsule',
    route_administration: 'Oral',
    schedule_number: 'S4',
    quantity: 20,
    repeats: 1,
    repeat_interval_days: 7,
    patient_instructions: 'One capsule three times a day',
    delivery: { method: 'SMS', recipient_type: 'PATIENT' },
    ...overrides,
  };
}

export const prescriptionsPath = (c: Clinic, patientId = c.patientId, userId = c.g.userId) =>
  `/v1/organizations/${c.g.organizationId}/users/${userId}/patients/${patientId}/prescriptions`;
export const helpersPath = (c: Clinic, patientId = c.patientId, userId = c.g.userId) =>
  `/v1/test-helpers/organizations/${c.g.organizationId}/users/${userId}/patients/${patientId}/prescriptions`;

/** The test helpers and read calls of one clinic, as its prescriber by default. */
export function prescriptionsClient(t: TestApp, c: Clinic) {
  return {
    prescribe: (body: unknown = prescribeBody(), o: { patientId?: string; userId?: string } = {}) => send(t, 'POST', helpersPath(c, o.patientId, o.userId), c.headers, body),
    change: (action: string, scid: string, body?: unknown, o: { patientId?: string; userId?: string } = {}) =>
      send(t, 'POST', `${helpersPath(c, o.patientId, o.userId)}/${scid}/${action}`, c.headers, body),
    list: (query = '', o: { patientId?: string; userId?: string } = {}) => send(t, 'GET', `${prescriptionsPath(c, o.patientId, o.userId)}${query}`, c.headers),
    read: (scid: string, o: { patientId?: string; userId?: string } = {}) => send(t, 'GET', `${prescriptionsPath(c, o.patientId, o.userId)}/${scid}`, c.headers),
  };
}
export type PrescriptionsClient = ReturnType<typeof prescriptionsClient>;

type GivenPrescription = { scid: string; reference: string; status: string; url: string; legal_metadata: { prescription_id: string }; [field: string]: unknown };

/** Prescribes and returns the created prescription (201 or the test fails). */
export async function givenPrescription(t: TestApp, c: Clinic, overrides: Record<string, unknown> = {}, o: { patientId?: string } = {}) {
  const response = await prescriptionsClient(t, c).prescribe(prescribeBody(overrides), o);
  if (response.statusCode !== 201) throw new Error(`prescribe failed: ${response.statusCode} ${response.body}`);
  const data = response.json().data as GivenPrescription;
  // How paths address it: the SCID, or erx's id where no PDS assigned one (a paper prescription, a Pending one).
  data.reference = data.scid ?? data.legal_metadata.prescription_id;
  return data;
}

/** The outbox's events of an organization, oldest first, as their envelopes. */
export async function outboxEvents(t: TestApp, organizationId: string) {
  const rows = await t.deps.database
    .selectFrom('webhook_events')
    .select(['id', 'event_type', 'partner_id', 'body'])
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => ({ ...row, envelope: JSON.parse(row.body) as Record<string, unknown> }));
}

/** The stored row, by its SCID or (a prescription without one) by erx's id. */
export async function storedPrescription(t: TestApp, scid: string) {
  return t.deps.database.selectFrom('prescriptions').selectAll().where(/^[0-9a-f-]{36}$/.test(scid) ? 'id' : 'scid', '=', scid).executeTakeFirst();
}
