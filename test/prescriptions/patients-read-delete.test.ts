// Read patient and delete patient (the vendor's Postman collection calls both), and the
// vendor's names on create patient's answer.
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/index.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { bearer, requestToken, useTestApp } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import { givenClinic, givenPatient, givenPrescription, prescriptionsClient, send, type Clinic } from './prescriptions-given.ts';

const { t, c, other } = useTestApp({}, async (t) => ({ c: await givenClinic(t), other: await givenClinic(t) }));

const wood = HI_DEMO_PATIENTS.activeVerified;
const patientsUrl = (clinic: Clinic, userId = clinic.g.userId) => `/v1/organizations/${clinic.g.organizationId}/users/${userId}/patients`;
const readPatient = (patientId: string, headers = c.headers, userId?: string) => send(t, 'GET', `${patientsUrl(c, userId)}/${patientId}`, headers);
const deletePatient = (patientId: string, headers = c.headers) => send(t, 'DELETE', `${patientsUrl(c)}/${patientId}`, headers);

async function headersWith(scopes: string[]) {
  return bearer(await requestToken(t, c.g, scopes), c.g);
}

describe('GET .../patients/{patient_id}', () => {
  it('answers the stored patient: the fields create accepts, platform_patient_id and has_ihi, never the IHI', async () => {
    const body = patientBody(c.g, wood, {
      medicare_card_number: wood.medicare_card_number,
      medicare_irn: wood.medicare_irn,
      phone: '+61412345678',
      email: wood.email,
      australian_address: wood.australian_street_address,
      ctg_eligible: false,
      indigenous_type: 'neither',
    });
    const created = await send(t, 'POST', patientsUrl(c), c.headers, body);
    const id = created.json().data.platform_patient_id;
    const response = await readPatient(id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'Patient retrieved successfully' });
    expect(response.json().data).toEqual({
      platform_patient_id: id,
      partner_patient_id: body.partner_patient_id,
      partner_id: c.g.partnerId,
      given_name: 'Jessica',
      family_name: 'Wood',
      date_of_birth: '1985-02-14',
      sex: 'F',
      has_ihi: true,
      ihi_status: 'ACTIVE',
      ihi_record_status: 'VERIFIED',
      medicare_card_number: wood.medicare_card_number,
      medicare_irn: wood.medicare_irn,
      phone: '0412345678',
      email: wood.email,
      australian_street_address: wood.australian_street_address,
      ctg_eligible: false,
      indigenous_type: 'neither',
    });
    expect(response.body).not.toContain(wood.ihi_number);
  });

  it.each([[['read:patient']], [['create:patient']]])('is allowed with %j alone', async (scopes) => {
    expect((await readPatient(c.patientId, await headersWith(scopes))).statusCode).toBe(200);
  });

  it('needs read:patient or create:patient (401 Insufficient scope without both)', async () => {
    const response = await readPatient(c.patientId, await headersWith(SCOPES.filter((s) => s !== 'read:patient' && s !== 'create:patient')));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });

  it.each([
    ['unknown', '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c'],
    ["another organization's", 'OTHER'],
    ['not a UUID', 'PMS-1'],
  ])('answers 404 patient-not-found for an %s patient', async (_case, id) => {
    const response = await readPatient(id === 'OTHER' ? other.patientId : id);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { type: expect.stringMatching(/\/patient-not-found$/) } });
  });

  it('answers 404 for a path user of another organization', async () => {
    expect((await readPatient(c.patientId, c.headers, other.g.userId)).json().error.detail).toBe('User not found');
  });
});

describe('DELETE .../patients/{patient_id}', () => {
  it('removes the patient from every read, answers 200 again when repeated, and keeps the row and its prescriptions', async () => {
    const { patientId } = await givenPatient(t, c);
    const { scid } = await givenPrescription(t, c, {}, { patientId });
    expect((await prescriptionsClient(t, c).change('cancel', scid, undefined, { patientId })).statusCode).toBe(200);
    const response = await deletePatient(patientId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, message: 'Patient deleted successfully', data: { patient_id: patientId } });
    expect((await deletePatient(patientId)).statusCode).toBe(200);
    const api = prescriptionsClient(t, c);
    for (const gone of [readPatient(patientId), api.list('', { patientId }), api.read(scid, { patientId }), api.prescribe(undefined, { patientId }),
      send(t, 'PUT', `${patientsUrl(c)}/${patientId}`, c.headers, { title: 'Ms' })]) {
      expect((await gone).statusCode).toBe(404);
    }
    const row = await t.deps.database.selectFrom('patients').select(['deleted_at', 'deleted_by_user_id']).where('id', '=', patientId).executeTakeFirstOrThrow();
    expect(row).toEqual({ deleted_at: t.clock.now().toISOString(), deleted_by_user_id: c.g.userId });
    expect(await t.deps.database.selectFrom('prescriptions').select('status').where('scid', '=', scid).executeTakeFirst()).toEqual({ status: 'Cancelled' });
  });

  it('frees the partner_patient_id: the precheck no longer finds it and create makes a new patient', async () => {
    const body = patientBody(c.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn });
    const first = (await send(t, 'POST', patientsUrl(c), c.headers, body)).json().data.platform_patient_id;
    expect((await send(t, 'POST', `${patientsUrl(c)}/ihi-precheck`, c.headers, body)).json().data.outcome).toBe('already_exists');
    expect((await deletePatient(first)).statusCode).toBe(200);
    expect((await send(t, 'POST', `${patientsUrl(c)}/ihi-precheck`, c.headers, body)).json().data).toMatchObject({ outcome: 'ihi_found', create_would_succeed: true });
    const again = await send(t, 'POST', patientsUrl(c), c.headers, body);
    expect(again.statusCode).toBe(201);
    expect(again.json().data.platform_patient_id).not.toBe(first);
  });

  it('answers 409 naming the Active prescription, and deletes once it is ceased', async () => {
    const { patientId } = await givenPatient(t, c);
    const { scid } = await givenPrescription(t, c, {}, { patientId });
    const refused = await deletePatient(patientId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'CONFLICT', error: { detail: `The patient has Active prescriptions (${scid}); cease or cancel them before deleting the patient` } });
    expect((await readPatient(patientId)).statusCode).toBe(200);
    expect((await prescriptionsClient(t, c).change('cease', scid, undefined, { patientId })).statusCode).toBe(200);
    expect((await deletePatient(patientId)).statusCode).toBe(200);
  });

  it("answers 200 for an unknown patient or another organization's, changing nothing", async () => {
    for (const id of ['3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c', 'PMS-1', other.patientId]) expect((await deletePatient(id)).statusCode).toBe(200);
    expect((await send(t, 'GET', `${patientsUrl(other)}/${other.patientId}`, other.headers)).statusCode).toBe(200);
  });

  it('needs update:patient (401 Insufficient scope without it)', async () => {
    const response = await deletePatient(c.patientId, await headersWith(SCOPES.filter((s) => s !== 'update:patient')));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});

describe('POST .../patients', () => {
  it("answers the vendor's names too: external_patient_id and parchment_patient_id", async () => {
    const body = patientBody(c.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn });
    for (const status of [201, 200]) {
      const response = await send(t, 'POST', patientsUrl(c), c.headers, body);
      expect(response.statusCode).toBe(status);
      const data = response.json().data;
      expect(data).toMatchObject({ external_patient_id: body.partner_patient_id, parchment_patient_id: data.platform_patient_id });
    }
  });
});
