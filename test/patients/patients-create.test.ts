// POST .../patients: 201 with the new patient's ids and portal URL, 200 with an existing one,
// a clear refusal wherever the precheck says create would not succeed, and no duplicates.
import { describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/platform/db/database.ts';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { bearer, givenIntegration, requestToken, type TestClient, givenClient, useTestApp, clientFor } from '../given.ts';
import { countPatients, DEMO, givenImportedPatient, insertPatientRow, patientBody, readPatientRow, medicareOf } from './patients-given.ts';
import { createTestApp } from '../test-app.ts';

const { t, c: api } = useTestApp({});

const wood = DEMO.activeVerified;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('creating a patient', () => {
  it('answers 201 with the ids, the IHI statuses and a portal URL, storing the IHI found', async () => {
    const body = patientBody(api.g, wood, { ...medicareOf(wood), phone: '+61412345678', email: wood.email });
    const response = await api.create(body);
    expect(response.statusCode).toBe(201);
    const envelope = response.json();
    expect(envelope).toMatchObject({ success: true, statusCode: 201, code: 'SUCCESS', message: 'Patient created successfully' });
    const id = envelope.data.platform_patient_id;
    expect(id).toMatch(UUID);
    expect(envelope.data).toEqual({
      platform_patient_id: id,
      partner_patient_id: body.partner_patient_id,
      has_ihi: true,
      ihi_status: 'ACTIVE',
      ihi_record_status: 'VERIFIED',
      url: `http://127.0.0.1:3000/dashboard/patients/${id}`,
      // The vendor's names for the two ids.
      external_patient_id: body.partner_patient_id,
      parchment_patient_id: id,
    });
    expect(response.body).not.toContain(wood.ihi_number);
    const row = await readPatientRow(t, id);
    expect(row).toMatchObject({ organization_id: api.g.organizationId, partner_id: api.g.partnerId, source: 'api', created_by_user_id: api.g.userId });
    expect(decryptSecret(row.ihi_number_encrypted!, t.deps.secretKey)).toBe(wood.ihi_number);
    // The phone, normalised, sealed as the IHI is (where a token SMS goes).
    expect(decryptSecret(row.phone_encrypted!, t.deps.secretKey)).toBe('0412345678');
  });

  it('creates a patient without an IHI when no identifier matches', async () => {
    const response = await api.create({ ...patientBody(api.g, wood, medicareOf(wood)), date_of_birth: '1985-02-15' });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ has_ihi: false });
    expect(response.json().data).not.toHaveProperty('ihi_status');
    expect((await readPatientRow(t, response.json().data.platform_patient_id)).ihi_number_encrypted).toBeNull();
  });

  it('does not keep a supplied IHI that the HI Service does not confirm for these demographics', async () => {
    const person = DEMO.mobileOnly;
    const response = await api.create(patientBody(api.g, person, { ihi_number: wood.ihi_number, phone: person.phone }));
    expect(response.statusCode).toBe(201);
    const row = await readPatientRow(t, response.json().data.platform_patient_id);
    expect(decryptSecret(row.ihi_number_encrypted!, t.deps.secretKey)).toBe(person.ihi_number);
  });

  it('creates a patient whose only identifier is a Medicare number without IRN', async () => {
    const response = await api.create(patientBody(api.g, wood, { medicare_card_number: wood.medicare_card_number }));
    expect(response.statusCode).toBe(201);
    expect(response.json().data.has_ihi).toBe(false);
  });

  it('creates a patient whose IHI is VERIFIED but DECEASED, reporting the status', async () => {
    const person = DEMO.deceasedVerified;
    const response = await api.create(patientBody(api.g, person, medicareOf(person)));
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ has_ihi: true, ihi_status: 'DECEASED', ihi_record_status: 'VERIFIED' });
  });

  it('folds australian_address into the stored street address', async () => {
    const person = DEMO.streetAddressOnly;
    const response = await api.create(patientBody(api.g, person, { australian_address: person.australian_street_address }));
    const row = await readPatientRow(t, response.json().data.platform_patient_id);
    expect(JSON.parse(row.australian_street_address!)).toEqual(person.australian_street_address);
    expect(response.json().data.has_ihi).toBe(true);
  });
});

describe('an existing partner_patient_id', () => {
  it('answers 200 with the existing patient and creates nothing more', async () => {
    const body = patientBody(api.g, wood, medicareOf(wood));
    const first = (await api.create(body)).json().data;
    const count = await countPatients(t, api.g.organizationId);
    const again = await api.create({ ...body, given_name: 'Different', medicare_card_number: undefined });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ message: 'Patient already exists', data: first });
    expect(await countPatients(t, api.g.organizationId)).toBe(count);
  });

  it('returns an imported patient holding the partner_patient_id', async () => {
    const id = await givenImportedPatient(t, api.g, 'IMPORTED-CREATE');
    const response = await api.create({ ...patientBody(api.g, wood), partner_patient_id: 'IMPORTED-CREATE' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ platform_patient_id: id, has_ihi: false });
  });

  it('answers 409 when several imported patients share it', async () => {
    await givenImportedPatient(t, api.g, 'DUPLICATED');
    await givenImportedPatient(t, api.g, 'DUPLICATED');
    const response = await api.create({ ...patientBody(api.g, wood, medicareOf(wood)), partner_patient_id: 'DUPLICATED' });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.type).toMatch(/\/resource-conflict$/);
  });

  it('lets the same partner_patient_id exist once in each organization', async () => {
    const other = await givenClient(t);
    const shared = `SAME-${Date.now()}`;
    const mine = await api.create({ ...patientBody(api.g, wood, medicareOf(wood)), partner_patient_id: shared });
    const theirs = await other.create({ ...patientBody(other.g, wood, medicareOf(wood)), partner_patient_id: shared });
    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(mine.json().data.platform_patient_id).not.toBe(theirs.json().data.platform_patient_id);
  });
});

describe('creates racing on one partner_patient_id', () => {
  it('never produce two patients: one 201, the others 200 with the same patient', async () => {
    const racers = 6;
    const raced = await createTestApp();
    try {
      const client = await givenClient(raced);
      raced.hi.gateSearches(racers);
      const body = patientBody(client.g, wood, medicareOf(wood));
      const responses = await Promise.all(Array.from({ length: racers }, () => client.create(body)));
      expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(responses.map((r) => r.json().data.platform_patient_id)).size).toBe(1);
      expect(await countPatients(raced, client.g.organizationId)).toBe(1);
    } finally {
      await raced.close();
    }
  });

  it('are backed by the database: a second API-created row is refused, imported duplicates are not', async () => {
    const g = api.g;
    await insertPatientRow(t, g, 'BACKSTOP', { source: 'api' });
    const error = await insertPatientRow(t, g, 'BACKSTOP', { source: 'api' }).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    await insertPatientRow(t, g, 'BACKSTOP', { source: 'import' });
    await insertPatientRow(t, g, 'BACKSTOP', { source: 'import' });
    const other = await givenIntegration(t);
    await insertPatientRow(t, other, 'BACKSTOP', { source: 'api' });
  });
});

describe('refusals where the precheck says create would not succeed', () => {
  async function expectRefused(client: TestClient, body: Record<string, unknown>, status: number, code: string) {
    const count = await countPatients(t, client.g.organizationId);
    const response = await client.create(body);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toMatchObject({ success: false, code });
    expect(await countPatients(t, client.g.organizationId)).toBe(count);
    return response.json().error;
  }

  it('answers 400 when the organization has no HPI-O', async () => {
    const notReady = await givenClient(t, { hpio: null });
    const error = await expectRefused(notReady, patientBody(notReady.g, wood, medicareOf(wood)), 400, 'INVALID_REQUEST');
    expect(error.detail).toContain('HPI-O');
  });

  it('answers 422 with REQUIRED_FIELD entries when there is no identifier to search on', async () => {
    const error = await expectRefused(api, patientBody(api.g, wood, { medicare_irn: '1' }), 422, 'VALIDATION_ERROR');
    expect(error.validation.map((i: { field: string }) => i.field)).toEqual([
      'ihi_number',
      'medicare_card_number',
      'dva_file_number',
      'phone',
      'email',
      'australian_street_address',
      'international_address.address_line',
      'international_address.postcode',
      'international_address.state_province',
      'international_address.country',
    ]);
    expect(error.validation.every((i: { code: string }) => i.code === 'REQUIRED_FIELD')).toBe(true);
  });

  it.each([
    ['PROVISIONAL', DEMO.activeProvisional],
    ['UNVERIFIED', DEMO.activeUnverified],
    ['not returned', DEMO.withoutStatus],
  ])('answers 422 HI_SERVICE_NOT_VERIFIED when the IHI record is %s', async (status, person) => {
    const error = await expectRefused(api, patientBody(api.g, person, medicareOf(person)), 422, 'VALIDATION_ERROR');
    expect(error.validation).toEqual([{ field: 'medicare_card_number', message: expect.stringContaining(status), code: 'HI_SERVICE_NOT_VERIFIED' }]);
    expect(JSON.stringify(error)).not.toContain(person.ihi_number);
  });

  it('answers 503 when the HI Service is unreachable', async () => {
    const person = DEMO.unreachable;
    const error = await expectRefused(api, patientBody(api.g, person, medicareOf(person)), 503, 'SERVICE_UNAVAILABLE');
    expect(error.type).toMatch(/\/service-unavailable$/);
  });
});

describe('path and credentials', () => {
  it('answers 404 for a path user of another organization', async () => {
    const other = await givenIntegration(t);
    const response = await api.create(patientBody(api.g, wood, medicareOf(wood)), other.userId);
    expect(response.statusCode).toBe(404);
  });

  it('rejects a token of another organization with 401', async () => {
    const other = await givenClient(t);
    const response = await t.app.inject({ method: 'POST', url: api.patientsUrl(), headers: bearer(other.token, other.g), payload: patientBody(api.g, wood) });
    expect(response.statusCode).toBe(401);
  });

  it('needs the create:patient scope', async () => {
    const token = await requestToken(t, api.g, ['update:patient', 'read:patient']);
    const response = await t.app.inject({ method: 'POST', url: api.patientsUrl(), headers: bearer(token, api.g), payload: patientBody(api.g, wood) });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});

describe('portal URL', () => {
  it("is the patient's page in the portal, on the portal's origin whatever the API's base path", async () => {
    const mounted = await createTestApp({ env: { ERX_PUBLIC_URL: 'https://erx.example.org', ERX_BASE_PATH: '/external', ERX_PORTAL_URL: 'https://portal.example.org' } });
    try {
      const g = await givenIntegration(mounted);
      const token = await requestToken(mounted, g);
      const response = await mounted.app.inject({
        method: 'POST',
        url: `/external${clientFor(mounted, g, token).patientsUrl()}`,
        headers: bearer(token, g),
        payload: patientBody(g, wood, medicareOf(wood)),
      });
      const data = response.json().data;
      expect(data.url).toBe(`https://portal.example.org/dashboard/patients/${data.platform_patient_id}`);
    } finally {
      await mounted.close();
    }
  });
});
