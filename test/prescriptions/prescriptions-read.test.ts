// The read calls: GET .../patients/{patient_id}/prescriptions and .../prescriptions/{scid},
// their shapes, every status they answer, and tenancy (another organization's patient,
// prescription and SCID are never found).
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/index.ts';
import { encodeLastKey } from '../../src/prescriptions/prescription-paging.ts';
import { isValidScid } from '../../src/pds/pds-scid.ts';
import { bearer, requestToken, useTestApp } from '../given.ts';
import { givenClinic, givenPatient, givenPrescription, prescriptionsClient, send } from './prescriptions-given.ts';

let othersScid: string;

const UNKNOWN_PATIENT = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';
/** The id in a lastKey made for another patient's list. */
const ANOTHER_PATIENT = '4a2d3b0f-6c8e-4d2f-8b3c-7e9f1a2b3c4d';

const { t, c, other, api, first, second } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const other = await givenClinic(t);
  const api = prescriptionsClient(t, c);
  const first = await givenPrescription(t, c);
  t.clock.advanceSeconds(60);
  const second = await givenPrescription(t, c, { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } });
  othersScid = (await givenPrescription(t, other)).scid;
  return { c, other, api, first, second };
});

/** A valid SCID with one character changed: the check character no longer fits. */
function mistyped(scid: string): string {
  return `${scid.slice(0, 5)}${scid[5] === 'A' ? 'B' : 'A'}${scid.slice(6)}`;
}

describe('GET .../prescriptions', () => {
  it("answers the patient, the path user's names and the prescriptions newest first, with pagination beside data", async () => {
    const response = await api.list();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['code', 'data', 'message', 'pagination', 'requestId', 'statusCode', 'success', 'timestamp']);
    expect(body).toMatchObject({ success: true, statusCode: 200, code: 'SUCCESS', message: 'Prescriptions retrieved successfully' });
    expect(body.data.patient).toEqual({
      given_name: 'Jessica',
      family_name: 'Wood',
      date_of_birth: '1985-02-14T00:00:00.000Z',
      sex: 'F',
      patient_id: c.patientId,
      partner_patient_id: c.partnerPatientId,
    });
    expect(body.data.prescriber).toEqual({ given_name: 'Anna', family_name: 'Smith', user_id: c.g.userId });
    expect(body.data.prescriptions.map((p: { scid: string }) => p.scid)).toEqual([second.scid, first.scid]);
    expect(body.data.prescriptions[0].delivery).toEqual({ method: 'EMAIL', recipient_type: 'PATIENT', destination: 'j.wood@example.com' });
    expect(body.pagination).toEqual({ count: 2, hasNext: false, limit: 20, offset: 0, lastKey: null });
  });

  it('names the path user as the (deprecated) prescriber, whoever wrote the prescriptions', async () => {
    const response = await api.list('', { userId: c.g.ownerId });
    expect(response.json().data.prescriber).toMatchObject({ user_id: c.g.ownerId, given_name: 'Test' });
    expect(response.json().data.prescriptions[0].prescriber.user_id).toBe(c.g.userId);
  });

  it('answers an empty list for a patient without prescriptions', async () => {
    const { patientId } = await givenPatient(t, c);
    const response = await api.list('', { patientId });
    expect(response.json().data.prescriptions).toEqual([]);
    expect(response.json().pagination).toEqual({ count: 0, hasNext: false, limit: 20, offset: 0, lastKey: null });
  });

  it.each(['?limit=0', '?limit=51', '?limit=ten', '?limit=', '?limit=1&limit=2', '?lastKey=not-a-key', `?lastKey=${encodeLastKey(ANOTHER_PATIENT, { createdAt: '2026-11-22T00:00:00.000Z', id: ANOTHER_PATIENT, offset: 20 })}`])(
    'answers 400 for %s, before looking anything up',
    async (query) => {
      for (const patientId of [c.patientId, UNKNOWN_PATIENT]) {
        const response = await api.list(query, { patientId });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'INVALID_REQUEST', error: { type: 'https://api.erx.example/errors/invalid-request' } });
        expect(response.json().error.detail).toMatch(/^Invalid query parameters provided: (limit|lastKey)/);
      }
    },
  );

  it.each([
    ['unknown', UNKNOWN_PATIENT],
    ["another organization's", 'OTHER'],
    ['not a UUID', 'PMS-1001'],
  ])('answers 404 patient-not-found for an %s patient', async (_case, id) => {
    const response = await api.list('', { patientId: id === 'OTHER' ? other.patientId : id });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      error: { type: 'https://api.erx.example/errors/patient-not-found', title: 'Patient not found' },
    });
  });

  it('answers 404 for a path user of another organization', async () => {
    const response = await api.list('', { userId: other.g.userId });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.detail).toBe('User not found');
  });

  it('needs read:patient_prescription (401 Insufficient scope without it)', async () => {
    const token = await requestToken(t, c.g, SCOPES.filter((scope) => scope !== 'read:patient_prescription'));
    const response = await send(t, 'GET', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}/prescriptions`, bearer(token, c.g));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});

describe('GET .../prescriptions/{scid}', () => {
  it('answers the patient and the prescription', async () => {
    const response = await api.read(first.scid);
    expect(response.statusCode).toBe(200);
    const list = (await api.list()).json().data;
    expect(response.json().data).toEqual({ patient: list.patient, prescription: list.prescriptions[1] });
  });

  it('reads a SCID in lower case as the same SCID', async () => {
    expect((await api.read(first.scid.toLowerCase())).json().data.prescription.scid).toBe(first.scid);
  });

  it.each(['too short', 'with a hyphen'])('answers 400 for a SCID %s, before looking anything up', async (kind) => {
    const scid = kind === 'too short' ? first.scid.slice(1) : `${first.scid.slice(1)}-`;
    for (const patientId of [c.patientId, UNKNOWN_PATIENT]) {
      const response = await api.read(scid, { patientId });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.detail).toContain('is not a SCID: 18 letters and digits');
    }
  });

  // The vendor's own documented examples fail erx's check character: reads must still look them up.
  it.each(['2F3WFX8J4WQH8T72X9', '2F3WFX8B8K66686MVA', 'mistyped'])('answers 404, not 400, for the SCID %s that erx does not hold', async (example) => {
    const scid = example === 'mistyped' ? mistyped(first.scid) : example;
    if (example !== 'mistyped') expect(isValidScid(scid)).toBe(false);
    const response = await api.read(scid);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { detail: `No prescription with SCID ${scid} for patient ${c.patientId}` } });
  });

  it("answers 404 naming the SCID and the patient for another patient's prescription", async () => {
    const { patientId } = await givenPatient(t, c);
    const response = await api.read(first.scid, { patientId });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { detail: `No prescription with SCID ${first.scid} for patient ${patientId}` } });
  });

  it("never finds another organization's prescription or patient", async () => {
    const underOwnPatient = await api.read(othersScid);
    expect(underOwnPatient.statusCode).toBe(404);
    expect(underOwnPatient.json().error.detail).toContain(othersScid);
    const underTheirPatient = await api.read(othersScid, { patientId: other.patientId });
    expect(underTheirPatient.statusCode).toBe(404);
    expect(underTheirPatient.json().error.type).toMatch(/\/patient-not-found$/);
  });
});
