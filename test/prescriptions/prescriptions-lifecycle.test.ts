// The lifecycle through the sandbox test helpers: create, then every change from every
// status a prescription can hold, each allowed change with its effect and each other one a
// 409 that names the current status and changes nothing (the audit trail notes it refused).
import { DEMO_HPIO, DEMO_PRESCRIBER_DETAILS } from '../../src/onboarding/sandbox-seed.ts';
import { describe, expect, it } from 'vitest';
import { PRESCRIPTION_CHANGES } from '../../src/prescriptions/index.ts';
import { isScidFormat } from '../../src/pds/index.ts';
import { isValidScid } from '../../src/pds/pds-scid.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPatient, givenPrescription, outboxEvents, prescriptionsClient, send, storedPrescription } from './prescriptions-given.ts';

const { t, c, api } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  return { c, api: prescriptionsClient(t, c) };
});

type Status = 'Active' | 'Ceased' | 'Cancelled' | 'Error';

/** A prescription in `status`: through the helpers, except Error, which no route leads to (a failed delivery will). */
async function prescriptionIn(status: Status): Promise<string> {
  const { scid } = await givenPrescription(t, c);
  if (status === 'Ceased' || status === 'Cancelled') {
    const response = await api.change(status === 'Ceased' ? 'cease' : 'cancel', scid);
    expect(response.statusCode).toBe(200);
  }
  if (status === 'Error') {
    await t.deps.database.updateTable('prescriptions').set({ status: 'Error', error_description: 'Delivery failed' }).where('scid', '=', scid).execute();
  }
  return scid;
}

describe('create', () => {
  it("answers 201 with an Active prescription in the vendor's shape: strings for quantities, unset fields absent", async () => {
    const response = await api.prescribe();
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ success: true, statusCode: 201, code: 'SUCCESS', message: 'Prescription created successfully' });
    const data = response.json().data;
    // The SCID is the PDS's (the sandbox simulator's, in the eRx format: no erx check character), and the PDS holds the script.
    expect(isScidFormat(data.scid) && !isValidScid(data.scid)).toBe(true);
    const held = await t.deps.database.selectFrom('pds_simulator_scripts').select(['scid', 'unique_id']).where('unique_id', '=', data.legal_metadata.prescription_id).execute();
    expect(held).toEqual([{ scid: data.scid, unique_id: data.legal_metadata.prescription_id }]);
    expect(data).toEqual({
      prescription_type: 'ELECTRONIC',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/tokens\/[A-Za-z0-9_-]{22}$/),
      scid: data.scid,
      status: 'Active',
      created_date: t.clock.now().toISOString(),
      item_name: 'Amoxicillin',
      item_strength: '500 mg',
      item_form: 'Capsule',
      route_administration: 'Oral',
      schedule_number: 'S4',
      quantity: '20',
      number_of_repeats_authorised: '1',
      repeat_intervals: '7',
      patient_instructions: 'One capsule three times a day',
      prescriber_script_number: expect.stringMatching(/^[1-9][0-9]*$/),
      prescriber: { given_name: 'Anna', family_name: 'Smith', user_id: c.g.userId },
      custom_drug_details: {},
      delivery: { method: 'SMS', recipient_type: 'PATIENT', destination: '0412345678' },
      legal_metadata: {
        conformance_id: 'ERX-SANDBOX-NOT-CONFORMANT',
        prescription_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        prescriber_hpii: DEMO_PRESCRIBER_DETAILS.hpii_number,
        organization_hpio: DEMO_HPIO,
      },
      dispensing: { supplies_dispensed: 0, repeats_remaining: 1, last_dispensed_at: null },
    });
  });
});

const ALLOWED: Record<string, { from: Status; to: Status }> = {
  cease: { from: 'Active', to: 'Ceased' },
  cancel: { from: 'Active', to: 'Cancelled' },
  reissue: { from: 'Active', to: 'Active' },
};
const STATUSES: Status[] = ['Active', 'Ceased', 'Cancelled', 'Error'];
const PAIRS = Object.keys(ALLOWED).flatMap((action) => STATUSES.map((status) => [action, status] as const));

describe('every change from every status (3 changes × 4 statuses)', () => {
  it.each(PAIRS.filter(([action, status]) => ALLOWED[action]!.from === status))('%s from %s is allowed', async (action, status) => {
    const scid = await prescriptionIn(status);
    const before = await outboxEvents(t, c.g.organizationId);
    const response = await api.change(action, scid);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ scid, status: ALLOWED[action]!.to });
    expect((await storedPrescription(t, scid))?.status).toBe(ALLOWED[action]!.to);
    const after = await outboxEvents(t, c.g.organizationId);
    expect(after.length - before.length).toBe(1);
  });

  it.each(PAIRS.filter(([action, status]) => ALLOWED[action]!.from !== status))('%s from %s is a 409 naming the status, changing nothing', async (action, status) => {
    const scid = await prescriptionIn(status);
    const [before, seq] = [await snapshotDatabase(t.deps.database), await lastAuditSeq(t)];
    const response = await api.change(action, scid);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'CONFLICT', error: { type: expect.stringMatching(/\/resource-conflict$/) } });
    expect(response.json().error.detail).toBe(`Prescription ${scid} is ${status}; only an Active prescription can be ${action === 'cease' ? 'ceased' : action === 'cancel' ? 'cancelled' : 'reissued'}`);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    // The trail's one entry: the refusal.
    const entries = (await auditEntriesAfter(t, seq)).map((entry) => [entry.action, entry.outcome, entry.prescription_scid, entry.detail]);
    expect(entries).toEqual([[`prescription.${action}`, 'refused', scid, { reason: 'CONFLICT' }]]);
  });
});

describe('two changes at once', () => {
  it.each([['cease', 'cancel'], ['cancel', 'cease'], ['cease', 'cease']])('%s and %s: one is applied, the other is a 409; one event', async (a, b) => {
    const { scid } = await givenPrescription(t, c);
    const before = await outboxEvents(t, c.g.organizationId);
    const responses = await Promise.all([api.change(a, scid), api.change(b, scid)]);
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
    const winner = responses.find((response) => response.statusCode === 200)!.json().data.status;
    expect((await storedPrescription(t, scid))?.status).toBe(winner);
    expect((await outboxEvents(t, c.g.organizationId)).length - before.length).toBe(1);
  });
});

describe('reissue', () => {
  it('overwrites the delivery and keeps the SCID, the url and the status', async () => {
    const created = await givenPrescription(t, c);
    const response = await api.change('reissue', created.scid, { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } });
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({ scid: created.scid, url: created.url, status: 'Active', delivery: { method: 'EMAIL', recipient_type: 'PATIENT', destination: 'j.wood@example.com' } });
    const read = await api.read(created.scid);
    expect(read.json().data.prescription.delivery).toEqual({ method: 'EMAIL', recipient_type: 'PATIENT', destination: 'j.wood@example.com' });
  });

  it("without a delivery sends the token the same way again, to the patient's address as it is now", async () => {
    const created = await givenPrescription(t, c);
    const updated = await send(t, 'PUT', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}`, c.headers, { phone: '0498765432' });
    expect(updated.statusCode).toBe(200);
    const response = await api.change('reissue', created.scid);
    expect(response.json().data.delivery).toEqual({ method: 'SMS', recipient_type: 'PATIENT', destination: '0498765432' });
    await send(t, 'PUT', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}`, c.headers, { phone: '0412345678' });
  });
});

describe('what the change routes answer besides 200 and the lifecycle 409', () => {
  const UNKNOWN_PATIENT = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';
  const ACTIONS = PRESCRIPTION_CHANGES;

  it.each(ACTIONS)('%s: 400 for a SCID of the wrong form, before looking anything up (even an unknown patient)', async (action) => {
    for (const malformed of ['A12425GABC1234002', 'A12425GABC-234002M']) {
      for (const patientId of [c.patientId, UNKNOWN_PATIENT]) {
        const response = await api.change(action, malformed, undefined, { patientId });
        expect(response.statusCode).toBe(400);
        expect(response.json().error.detail).toBe(`"${malformed}" is not a SCID: 18 letters and digits`);
      }
    }
  });

  it.each(ACTIONS)('%s: 404 for a SCID whose check character does not fit (any 18 letters and digits are looked up)', async (action) => {
    const { scid } = await givenPrescription(t, c);
    const typo = `${scid.slice(0, 17)}${scid[17] === '0' ? '1' : '0'}`;
    const response = await api.change(action, typo);
    expect(response.statusCode).toBe(404);
  });

  it.each(ACTIONS)("%s: 404 for an unknown SCID, another patient's, another organization's patient or user, before judging the body", async (action) => {
    const { scid } = await givenPrescription(t, c);
    const other = await givenClinic(t);
    const badBody = { reserved_1: 42 };
    const unknownScid = await api.change(action, 'A12425GABC1234002M', badBody);
    expect(unknownScid.statusCode).toBe(404);
    expect(unknownScid.json().error.detail).toBe(`No prescription with SCID A12425GABC1234002M for patient ${c.patientId}`);
    expect((await api.change(action, scid, badBody, { patientId: other.patientId })).json().error.type).toMatch(/\/patient-not-found$/);
    expect((await api.change(action, scid, badBody, { userId: other.g.userId })).json().error.detail).toBe('User not found');
    const { patientId } = await givenPatient(t, c);
    expect((await api.change(action, scid, badBody, { patientId })).statusCode).toBe(404);
  });

  it.each(ACTIONS)('%s: 422 for a bad body, changing nothing', async (action) => {
    const { scid } = await givenPrescription(t, c);
    const before = await snapshotDatabase(t.deps.database);
    const response = await api.change(action, scid, { reserved_1: 42, ...(action === 'reissue' ? { delivery: { method: 'SMS', recipient_type: 'PHARMACY', pharmacy_id: 'nowhere' } } : {}) });
    expect(response.statusCode).toBe(422);
    const fields = response.json().error.validation.map((issue: { field: string }) => issue.field);
    expect(fields).toEqual(action === 'reissue' ? ['reserved_1', 'delivery.pharmacy_id'] : ['reserved_1']);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });

  it.each(ACTIONS)('%s: 409 when the acting user cannot prescribe', async (action) => {
    const { scid } = await givenPrescription(t, c);
    const response = await api.change(action, scid, undefined, { userId: c.g.ownerId });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.detail).toContain(`User ${c.g.ownerId} cannot prescribe`);
    expect((await storedPrescription(t, scid))?.status).toBe('Active');
  });

  it('415 for a body that is not JSON', async () => {
    const { scid } = await givenPrescription(t, c);
    const url = `/v1/test-helpers/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}/prescriptions/${scid}/cease`;
    const response = await t.app.inject({ method: 'POST', url, headers: { ...c.headers, 'content-type': 'text/plain' }, payload: 'cease' });
    expect(response.statusCode).toBe(415);
  });
});

describe('Error status', () => {
  it('is shown with the error object, which no other status carries', async () => {
    const failed = await prescriptionIn('Error');
    const active = await prescriptionIn('Active');
    expect((await api.read(failed)).json().data.prescription).toMatchObject({ status: 'Error', error: { description: 'Delivery failed' } });
    expect((await api.read(active)).json().data.prescription).not.toHaveProperty('error');
  });
});
