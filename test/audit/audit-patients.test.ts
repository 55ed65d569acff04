// Patients in the audit trail: create, read (the API's and the portal's patient page, and
// create answering with a patient that exists), update, delete, and the portal's search, each
// leaving exactly one entry of its action with who acted, for which HPI-O, on which patient,
// from which request. Nothing is recorded for what was not done, and a read whose entry
// cannot be written answers 500 instead of the patient.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPatient, givenPrescription, prescriptionsClient, send } from '../prescriptions/prescriptions-given.ts';
import { DEMO, medicareOf, patientBody } from '../patients/patients-given.ts';
import { auditEntriesAfter, expectNoneOfInAuditTrail, lastAuditSeq, theOneAuditEntry, whileAuditTrailUnwritable } from './audit-helpers.ts';
import { expectRequestFacts, rawValuesOf } from './patients-audit-given.ts';

const { t, c: clinic, other } = useTestApp({}, async (t) => ({ c: await givenClinic(t), other: await givenClinic(t) }));

const wood = DEMO.activeVerified;
const patientUrl = (patientId: string, c = clinic) => `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${patientId}`;

async function actionsAfter(seq: number): Promise<string[]> {
  return (await auditEntriesAfter(t, seq)).map((entry) => entry.action);
}

describe('patients through the API', () => {
  it('create records patient.create, and create answering with the existing patient records a read of it', async () => {
    const body = patientBody(clinic.g, wood, medicareOf(wood));
    const before = await lastAuditSeq(t);
    const created = await send(t, 'POST', clinic.patientsUrl(), clinic.headers, body);
    expect(created.statusCode).toBe(201);
    const patientId = created.json().data.platform_patient_id as string;
    const entry = await theOneAuditEntry(t, before, 'patient.create');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: patientId, prescription_scid: null, target_user_id: null, detail: null });
    expectRequestFacts(entry, clinic.g, created);

    const beforeAgain = await lastAuditSeq(t);
    const again = await send(t, 'POST', clinic.patientsUrl(), clinic.headers, body);
    expect(again.statusCode).toBe(200);
    expect(await actionsAfter(beforeAgain)).toEqual(['patient.read']);
    const read = await theOneAuditEntry(t, beforeAgain, 'patient.read');
    expect(read).toMatchObject({ outcome: 'success', patient_id: patientId });
    expectRequestFacts(read, clinic.g, again);
  });

  it('two creates racing for one partner_patient_id record one patient.create and one read of the winner', async () => {
    const body = patientBody(clinic.g, wood, medicareOf(wood));
    const before = await lastAuditSeq(t);
    t.hi.gateSearches(2);
    const answers = await Promise.all([1, 2].map(() => send(t, 'POST', clinic.patientsUrl(), clinic.headers, body))).finally(() => t.hi.reset());
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 201]);
    const patientId = answers[0]!.json().data.platform_patient_id as string;
    expect(answers[1]!.json().data.platform_patient_id).toBe(patientId);
    const entries = await auditEntriesAfter(t, before);
    expect((await theOneAuditEntry(t, before, 'patient.create')).patient_id).toBe(patientId);
    expect((await theOneAuditEntry(t, before, 'patient.read')).patient_id).toBe(patientId);
    // Each create asked the HI Service once; only the winner's search names the patient it made.
    const searches = entries.filter((entry) => entry.action === 'hi.ihi_search').map((entry) => entry.patient_id);
    expect(searches.sort()).toEqual([null, patientId].sort());
  });

  it('read records patient.read of the patient; another organization\'s patient records nothing', async () => {
    const before = await lastAuditSeq(t);
    const response = await send(t, 'GET', patientUrl(clinic.patientId), clinic.headers);
    expect(response.statusCode).toBe(200);
    const entry = await theOneAuditEntry(t, before, 'patient.read');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: clinic.patientId });
    expectRequestFacts(entry, clinic.g, response);

    const beforeForeign = await lastAuditSeq(t);
    const foreign = await send(t, 'GET', patientUrl(other.patientId), clinic.headers);
    expect(foreign.statusCode).toBe(404);
    expect(await actionsAfter(beforeForeign)).toEqual([]);
  });

  it('update records patient.update (no HI search when the demographics stay); a refused body records nothing', async () => {
    const before = await lastAuditSeq(t);
    const response = await send(t, 'PUT', patientUrl(clinic.patientId), clinic.headers, { title: 'Ms', phone: '0498765432' });
    expect(response.statusCode, response.body).toBe(200);
    expect(await actionsAfter(before)).toEqual(['patient.update']);
    const entry = await theOneAuditEntry(t, before, 'patient.update');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: clinic.patientId });
    expectRequestFacts(entry, clinic.g, response);

    const beforeRefused = await lastAuditSeq(t);
    expect((await send(t, 'PUT', patientUrl(clinic.patientId), clinic.headers, { sex: 'Q' })).statusCode).toBe(422);
    expect((await send(t, 'PUT', patientUrl(other.patientId), clinic.headers, { title: 'Mr' })).statusCode).toBe(404);
    expect(await actionsAfter(beforeRefused)).toEqual([]);
  });

  it('delete records patient.delete once; deleting it again, or another organization\'s patient, records nothing', async () => {
    const { patientId } = await givenPatient(t, clinic);
    const before = await lastAuditSeq(t);
    const response = await send(t, 'DELETE', patientUrl(patientId), clinic.headers);
    expect(response.statusCode).toBe(200);
    const entry = await theOneAuditEntry(t, before, 'patient.delete');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: patientId });
    expectRequestFacts(entry, clinic.g, response);

    const beforeAgain = await lastAuditSeq(t);
    expect((await send(t, 'DELETE', patientUrl(patientId), clinic.headers)).statusCode).toBe(200);
    expect((await send(t, 'DELETE', patientUrl(other.patientId), clinic.headers)).statusCode).toBe(200);
    expect(await actionsAfter(beforeAgain)).toEqual([]);
  });

  it('a delete refused for an Active prescription records patient.delete refused, and nothing is deleted', async () => {
    const { patientId } = await givenPatient(t, clinic);
    await givenPrescription(t, clinic, {}, { patientId });
    const before = await lastAuditSeq(t);
    const response = await send(t, 'DELETE', patientUrl(patientId), clinic.headers);
    expect(response.statusCode).toBe(409);
    const entry = await theOneAuditEntry(t, before, 'patient.delete');
    expect(entry).toMatchObject({ outcome: 'refused', patient_id: patientId, detail: { reason: 'CONFLICT' } });
    expectRequestFacts(entry, clinic.g, response);
    expect((await prescriptionsClient(t, clinic).list('', { patientId })).statusCode).toBe(200);
  });
});

describe('patients in the portal', () => {
  it("the patient page records patient.read of the patient", async () => {
    const portal = await signIn(t, clinic.g);
    const before = await lastAuditSeq(t);
    const page = await portal.get(`/dashboard/patients/${clinic.patientId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(wood.family_name);
    const entry = await theOneAuditEntry(t, before, 'patient.read');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: clinic.patientId });
    expectRequestFacts(entry, clinic.g, page);

    const beforeForeign = await lastAuditSeq(t);
    expect((await portal.get(`/dashboard/patients/${other.patientId}`)).statusCode).toBe(404);
    expect((await actionsAfter(beforeForeign)).filter((action) => action.startsWith('patient.'))).toEqual([]);
  });

  it('the search by partner_patient_id records patient.list with how many it found', async () => {
    const portal = await signIn(t, clinic.g);
    const before = await lastAuditSeq(t);
    const found = await portal.submit('/dashboard', { partner_patient_id: clinic.partnerPatientId }, '/dashboard/find-patient');
    expect(found.statusCode).toBe(303);
    const entry = await theOneAuditEntry(t, before, 'patient.list');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: clinic.patientId, detail: { count: 1 } });
    expectRequestFacts(entry, clinic.g, found);

    const beforeNone = await lastAuditSeq(t);
    // Another organization's patient is not found: the search shows nothing.
    const none = await portal.submit('/dashboard', { partner_patient_id: other.partnerPatientId }, '/dashboard/find-patient');
    expect(none.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, beforeNone, 'patient.list')).toMatchObject({ patient_id: null, detail: { count: 0 } });
  });
});

describe('fail closed', () => {
  it('answers 500 and not the patient when its read cannot be recorded', async () => {
    const portal = await signIn(t, clinic.g);
    await whileAuditTrailUnwritable(t, async () => {
      const response = await send(t, 'GET', patientUrl(clinic.patientId), clinic.headers);
      expect(response.statusCode).toBe(500);
      expect(response.body).not.toContain(wood.family_name);
      const page = await portal.get(`/dashboard/patients/${clinic.patientId}`);
      expect(page.statusCode).toBe(500);
      expect(page.body).not.toContain(wood.family_name);
    });
  });
});

it('leaves no identifier or demographic this file sent in the audit trail', async () => {
  await expectNoneOfInAuditTrail(t, [...rawValuesOf(wood), '0498765432']);
});
