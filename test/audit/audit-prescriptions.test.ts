// The audit trail of prescriptions: each create, cease, cancel and reissue leaves exactly one
// entry whichever surface made it (the sandbox test helpers, the portal's forms), with who
// acted, for which HPI-O, from which request and address; a refused change one 'refused'
// entry; each read that answers (the API's list and read, the portal's prescription page, the
// public token page) one entry; a read whose entry cannot be written answers 500, not the
// prescription; and no identifier or demographic ever reaches the table.
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import { PRESCRIPTION_CHANGES } from '../../src/prescriptions/index.ts';
import { PRESCRIPTION_ACTIONS, type PrescriptionAction } from '../../src/prescriptions/prescription-lifecycle.ts';
import { newScid } from '../../src/pds/pds-scid.ts';
import { useTestApp } from '../given.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPrescription, givenSecondPrescriber, helpersPath, prescribeBody, prescriptionsPath } from '../prescriptions/prescriptions-given.ts';
import { TEST_PROVIDERS } from '../users/users-given.ts';
import { auditEntriesAfter, expectNoneOfInAuditTrail, lastAuditSeq, theOneAuditEntry, type AuditEntryRow, whileAuditTrailUnwritable } from './audit-helpers.ts';

/** The client address every audited request of this file comes from (a documentation range). */
const ADDRESS = '198.51.100.23';

const { t, c, session } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  return { c, session: await signIn(t, c.g, `/embed/patients/${c.patientId}/prescriptions`) };
});

/** An API call as the clinic's prescriber, from ADDRESS. */
function api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<LightMyRequestResponse> {
  const json = body === undefined ? {} : { payload: JSON.stringify(body), headers: { ...c.headers, 'content-type': 'application/json' } };
  return t.app.inject({ method, url: `${t.deps.config.basePath}${path}`, remoteAddress: ADDRESS, headers: c.headers, ...json });
}

/** A portal request in the session, from ADDRESS; `fields` are posted as a form. */
function portal(method: 'GET' | 'POST', url: string, fields?: Record<string, string>): Promise<LightMyRequestResponse> {
  const form = fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
  const payload = fields ? { payload: new URLSearchParams(fields).toString() } : {};
  return t.app.inject({ method, url, remoteAddress: ADDRESS, headers: { cookie: session.cookie, ...form }, ...payload });
}

const formPath = () => `/embed/patients/${c.patientId}/prescriptions`;
const pagePath = (scid: string) => `${formPath()}/${scid}`;

/** The prescription entries after `seq`, as their actions. */
async function prescriptionActionsAfter(seq: number): Promise<string[]> {
  return (await auditEntriesAfter(t, seq)).map((entry) => entry.action).filter((action) => action.startsWith('prescription.'));
}

/**
 * An entry of the clinic's prescriber (through the API or the portal), for the clinic's patient,
 * from ADDRESS; a change's target user is the prescriber it was made as (here the same one).
 */
function expectPrescriberEntry(entry: AuditEntryRow, response: LightMyRequestResponse, expected: { scid: string | null; outcome?: string; change?: boolean }): void {
  expect(entry).toMatchObject({
    outcome: expected.outcome ?? 'success',
    actor_kind: 'user',
    partner_id: c.g.partnerId,
    organization_id: c.g.organizationId,
    user_id: c.g.userId,
    operator: null,
    hpio: DEMO_HPIO,
    patient_id: c.patientId,
    prescription_scid: expected.scid,
    target_user_id: expected.change ? c.g.userId : null,
    client_address: ADDRESS,
  });
  expectRequestOf(entry, response);
}

/** The entry was recorded in `response`'s request (its x-request-id; an API envelope's requestId says the same). */
function expectRequestOf(entry: AuditEntryRow, response: LightMyRequestResponse): void {
  expect(response.headers['x-request-id'], 'the response names its request').toEqual(expect.any(String));
  expect(entry.request_id).toBe(response.headers['x-request-id']);
  if (String(response.headers['content-type']).startsWith('application/json')) expect(response.json().requestId).toBe(entry.request_id);
}

/** Performs `action` through the sandbox test helper (on a new prescription for a change); returns the response and the SCID. */
async function helperAction(action: PrescriptionAction, seq: () => Promise<number>) {
  if (action === 'create') {
    const before = await seq();
    const response = await api('POST', helpersPath(c), prescribeBody());
    return { before, response, scid: response.json().data?.scid as string };
  }
  const { scid } = await givenPrescription(t, c);
  const before = await seq();
  return { before, response: await api('POST', `${helpersPath(c)}/${scid}/${action}`, {}), scid };
}

describe('changes through the sandbox test helpers', () => {
  it.each(PRESCRIPTION_ACTIONS)('%s: exactly one entry, in the request that made it', async (action) => {
    const { before, response, scid } = await helperAction(action, () => lastAuditSeq(t));
    expect(response.statusCode, response.body).toBe(action === 'create' ? 201 : 200);
    const entry = await theOneAuditEntry(t, before, `prescription.${action}`);
    expectPrescriberEntry(entry, response, { scid, change: true });
    expect(entry.detail).toBeNull();
    expect(await prescriptionActionsAfter(before)).toEqual([`prescription.${action}`]);
  });

  it('a change the lifecycle refuses (409): one refused entry, in its request', async () => {
    const { scid } = await givenPrescription(t, c);
    expect((await api('POST', `${helpersPath(c)}/${scid}/cease`, {})).statusCode).toBe(200);
    const before = await lastAuditSeq(t);
    const refused = await api('POST', `${helpersPath(c)}/${scid}/reissue`, {});
    expect(refused.statusCode).toBe(409);
    const entry = await theOneAuditEntry(t, before, 'prescription.reissue');
    expectPrescriberEntry(entry, refused, { scid, outcome: 'refused', change: true });
    expect(entry.detail).toEqual({ reason: 'CONFLICT' });
    expect(await prescriptionActionsAfter(before)).toEqual(['prescription.reissue']);
  });

  it("a change made as another prescriber (the path's user): the caller is the actor, that prescriber the target user", async () => {
    const fredId = await givenSecondPrescriber(t, c);
    const { scid } = await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const ceased = await api('POST', `${helpersPath(c, c.patientId, fredId)}/${scid}/cease`, {});
    expect(ceased.statusCode).toBe(200);
    const entry = await theOneAuditEntry(t, before, 'prescription.cease');
    expect([entry.user_id, entry.target_user_id, entry.prescription_scid]).toEqual([c.g.userId, fredId, scid]);
  });

  it('a change refused before the lifecycle (400 for a mistyped SCID, 404 for an unknown one) leaves none', async () => {
    const before = await lastAuditSeq(t);
    expect((await api('POST', `${helpersPath(c)}/NOT-A-SCID/cease`, {})).statusCode).toBe(400);
    expect((await api('POST', `${helpersPath(c)}/${newScid()}/cease`, {})).statusCode).toBe(404);
    expect(await prescriptionActionsAfter(before)).toEqual([]);
  });
});

describe('changes through the portal', () => {
  it('create: the form posted once leaves exactly one entry, of the session user, in that request', async () => {
    const page = await session.get(formPath());
    const fields = { medicine: 'pbs:2622B', quantity: '20', repeats: '1', send_to: 'patient-sms', intent: 'create' };
    const before = await lastAuditSeq(t);
    const created = await portal('POST', formPath(), { _csrf: csrfOf(page.body), ...formIdFieldOf(page.body), ...fields });
    const scid = scidOfRedirect(created);
    expectPrescriberEntry(await theOneAuditEntry(t, before, 'prescription.create'), created, { scid, change: true });
    expect(await prescriptionActionsAfter(before)).toEqual(['prescription.create']);
  });

  it.each(PRESCRIPTION_CHANGES)('%s: confirmed, exactly one entry and no read in that request', async (action) => {
    const { scid } = await givenPrescription(t, c);
    const page = await session.get(pagePath(scid));
    const step = await portal('POST', `${pagePath(scid)}/${action}`, { _csrf: csrfOf(page.body) });
    expect(step.statusCode).toBe(200);
    const before = await lastAuditSeq(t);
    const sendTo: Record<string, string> = action === 'reissue' ? { send_to: 'patient-email' } : {};
    const done = await portal('POST', `${pagePath(scid)}/${action}`, { _csrf: csrfOf(step.body), ...formIdFieldOf(step.body), confirm: 'yes', ...sendTo });
    expect(done.statusCode, done.body.slice(0, 300)).toBe(303);
    expectPrescriberEntry(await theOneAuditEntry(t, before, `prescription.${action}`), done, { scid, change: true });
    expect(await prescriptionActionsAfter(before)).toEqual([`prescription.${action}`]);
  });
});

describe('reads', () => {
  it("the API's list: one entry with the patient and how many it returned, in its request", async () => {
    await givenPrescription(t, c);
    await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const listed = await api('GET', `${prescriptionsPath(c)}?limit=2`);
    expect(listed.statusCode).toBe(200);
    const entry = await theOneAuditEntry(t, before, 'prescription.list');
    expectPrescriberEntry(entry, listed, { scid: null });
    expect(entry.detail).toEqual({ count: 2 });
    expect(await prescriptionActionsAfter(before)).toEqual(['prescription.list']);
  });

  it("the API's read by SCID: one entry with the SCID, in its request", async () => {
    const { scid } = await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const read = await api('GET', `${prescriptionsPath(c)}/${scid.toLowerCase()}`);
    expect(read.statusCode).toBe(200);
    expectPrescriberEntry(await theOneAuditEntry(t, before, 'prescription.read'), read, { scid });
    expect(await prescriptionActionsAfter(before)).toEqual(['prescription.read']);
  });

  it("the portal's prescription page: one entry of the session user", async () => {
    const { scid } = await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const page = await portal('GET', pagePath(scid));
    expect(page.statusCode).toBe(200);
    expectPrescriberEntry(await theOneAuditEntry(t, before, 'prescription.read'), page, { scid });
    expect(await prescriptionActionsAfter(before)).toEqual(['prescription.read']);
  });

  it("the portal's patient page lists the patient's prescriptions: one list entry", async () => {
    const before = await lastAuditSeq(t);
    const page = await portal('GET', `/dashboard/patients/${c.patientId}`);
    expect(page.statusCode).toBe(200);
    const entry = await theOneAuditEntry(t, before, 'prescription.list');
    expectPrescriberEntry(entry, page, { scid: null });
    expect(entry.detail).toEqual({ count: expect.any(Number) });
  });

  it('the public token page: one anonymous entry with the client address, the SCID and the patient; none for an unknown token', async () => {
    const { scid, url } = await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const shown = await t.app.inject({ method: 'GET', url: new URL(url).pathname, remoteAddress: ADDRESS });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain(scid);
    const entry = await theOneAuditEntry(t, before, 'prescription.token_page');
    expect(entry).toMatchObject({
      outcome: 'success',
      actor_kind: 'anonymous',
      partner_id: null,
      user_id: null,
      hpio: null,
      organization_id: c.g.organizationId,
      patient_id: c.patientId,
      prescription_scid: scid,
      client_address: ADDRESS,
      detail: null,
    });
    expectRequestOf(entry, shown);
    const unknown = await t.app.inject({ method: 'GET', url: `/tokens/${'x'.repeat(22)}`, remoteAddress: ADDRESS });
    expect(unknown.statusCode).toBe(404);
    expect(await prescriptionActionsAfter(before)).toEqual(['prescription.token_page']);
  });
});

describe('fail closed', () => {
  /** Runs `request` while the audit trail cannot write a read's entry; restores it after. */
  async function withUnwritableTrail(request: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
    return whileAuditTrailUnwritable(t, request);
  }

  it.each([
    ['the API read', (scid: string) => api('GET', `${prescriptionsPath(c)}/${scid}`)],
    ['the portal page', (scid: string) => portal('GET', pagePath(scid))],
  ])('%s answers 500, not the prescription, when its entry cannot be written', async (_name, read) => {
    const { scid } = await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const response = await withUnwritableTrail(() => read(scid));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain(scid);
    expect(response.body).not.toContain('Amoxicillin');
    expect(await auditEntriesAfter(t, before)).toEqual([]);
    // The same read, the trail writable again, answers.
    expect((await read(scid)).statusCode).toBe(200);
  });

  it('the token page answers 500, not the prescription, when its entry cannot be written', async () => {
    const { scid, url } = await givenPrescription(t, c);
    const response = await withUnwritableTrail(() => t.app.inject({ method: 'GET', url: new URL(url).pathname, remoteAddress: ADDRESS }));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain(scid);
  });
});

describe('the table', () => {
  it("holds none of the patient's identifiers and demographics, the prescribers' HPI-Is or names, or a token", async () => {
    const wood = HI_DEMO_PATIENTS.activeVerified;
    const [anna, fred] = [HI_DEMO_PROVIDERS.verified, TEST_PROVIDERS.fred];
    const { url } = await givenPrescription(t, c);
    expect((await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(200);
    const address = wood.australian_street_address;
    await expectNoneOfInAuditTrail(t, [
      ...[wood.ihi_number, wood.medicare_card_number, wood.dva_file_number, wood.given_name, wood.family_name, wood.date_of_birth, wood.phone, wood.email],
      // Not the postcode or the state: four digits or three letters may occur by chance in a hash or a request id.
      `${address.street_number} ${address.street_name}`, address.suburb,
      ...[anna.hpii_number, anna.given_name, anna.family_name, anna.date_of_birth],
      ...[fred.hpii_number, fred.given_name, fred.family_name, fred.date_of_birth],
      new URL(url).pathname.split('/').pop()!,
    ]);
  });
});
