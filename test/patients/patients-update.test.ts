// PUT .../patients/{patient_id}: partial update, IHI re-verification when demographics (or
// the IHI) change, the vendor's update spellings, and tenancy.
import { describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { requestToken, clientFor, givenClient, useTestApp } from '../given.ts';
import { DEMO, givenImportedPatient, patientBody, readPatientRow, medicareOf } from './patients-given.ts';
import { snapshotDatabase } from '../database-snapshot.ts';

const { t, c: api } = useTestApp({});

const wood = DEMO.activeVerified;

/** Jessica Wood, created with her Medicare number, phone and e-mail: holds her IHI. */
async function givenWood(extra: Record<string, unknown> = {}): Promise<string> {
  const response = await api.create(patientBody(api.g, wood, { ...medicareOf(wood), phone: wood.phone, email: wood.email, ...extra }));
  expect(response.json().data.has_ihi).toBe(true);
  return response.json().data.platform_patient_id;
}

async function storedIhi(patientId: string): Promise<string | null> {
  const row = await readPatientRow(t, patientId);
  return row.ihi_number_encrypted === null ? null : decryptSecret(row.ihi_number_encrypted, t.deps.secretKey);
}

async function updated(patientId: string, body: unknown) {
  const response = await api.update(patientId, body);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'Patient updated successfully' });
  return response.json().data;
}

describe('partial update', () => {
  it('changes only the fields sent and does not consult the HI Service when demographics are unchanged', async () => {
    const id = await givenWood({ racf_id: 'RACF-1', concession_pension_number: 'CP-1' });
    const searches = t.hi.searches.length;
    const data = await updated(id, { title: 'Ms', phone: '0498765432', email: 'jess@example.org', given_name: 'Jessica' });
    expect(data).toMatchObject({ title: 'Ms', phone: '0498765432', email: 'jess@example.org', given_name: 'Jessica', family_name: 'Wood', has_ihi: true, ihi_reverified: false });
    expect(t.hi.searches.length).toBe(searches);
    const row = await readPatientRow(t, id);
    expect(row).toMatchObject({ racf_id: 'RACF-1', date_of_birth: wood.date_of_birth, medicare_irn: '1' });
    expect(decryptSecret(row.concession_pension_number_encrypted!, t.deps.secretKey)).toBe('CP-1');
    expect(decryptSecret(row.medicare_card_number_encrypted!, t.deps.secretKey)).toBe(wood.medicare_card_number);
  });

  it("answers the path's patient_id beside platform_patient_id, as the vendor's update does", async () => {
    const id = await givenWood();
    const data = await updated(id, { phone: '0498765432' });
    expect(data.patient_id).toBe(id);
    expect(data.platform_patient_id).toBe(id);
  });

  it('clears a nullable field sent as null', async () => {
    const id = await givenWood({ medicare_valid_to: '2030-01-31' });
    await updated(id, { medicare_card_number: null, medicare_irn: null, medicare_valid_to: null });
    const row = await readPatientRow(t, id);
    expect(row).toMatchObject({ medicare_card_number_encrypted: null, medicare_irn: null, medicare_valid_to: null });
    expect(await storedIhi(id)).toBe(wood.ihi_number);
  });

  it("accepts the vendor's update spellings and stores the create ones", async () => {
    const id = await givenWood();
    await updated(id, { dva_file_number: 'NX123456', dva_card_color: 'W', indigenous_type: 'Torres Strait Islander', is_inpatient: true, ctg_eligible: false });
    expect(await readPatientRow(t, id)).toMatchObject({ dva_card_color: 'white', indigenous_type: 'torres_strait_islander', is_inpatient: 1, ctg_eligible: 0 });
    await updated(id, { indigenous_type: 'Prefer not to say', dva_card_color: 'gold' });
    expect(await readPatientRow(t, id)).toMatchObject({ dva_card_color: 'gold', indigenous_type: 'not_stated' });
  });

  it('stores a street address sent under either key', async () => {
    const id = await givenWood();
    const address = DEMO.streetAddressOnly.australian_street_address;
    await updated(id, { australian_address: address });
    expect(JSON.parse((await readPatientRow(t, id)).australian_street_address!)).toEqual(address);
    await updated(id, { australian_street_address: null });
    expect((await readPatientRow(t, id)).australian_street_address).toBeNull();
  });

  it('answers 400 for a body without updatable fields', async () => {
    const id = await givenWood();
    const response = await api.update(id, { partner_patient_id: 'ignored', unknown_field: 1 });
    expect(response.statusCode).toBe(400);
  });
});

describe('IHI re-verification', () => {
  it('re-runs when a name changes and keeps the IHI while it still verifies', async () => {
    const id = await givenWood();
    const searches = t.hi.searches.length;
    const data = await updated(id, { family_name: 'WOOD' });
    expect(data).toMatchObject({ ihi_reverified: true, has_ihi: true, ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED' });
    expect(t.hi.searches.slice(searches).map((s) => s.path)).toEqual(['ihi_number']);
    expect(t.hi.searches.at(-1)).toMatchObject({ ihi_number: wood.ihi_number, demographics: { family_name: 'WOOD' } });
    expect(await storedIhi(id)).toBe(wood.ihi_number);
  });

  it.each([
    ['given name', { given_name: 'Jess' }],
    ['family name', { family_name: 'Woods' }],
    ['date of birth', { date_of_birth: '1985-02-15' }],
    ['sex', { sex: 'N' }],
  ])('removes the stored IHI when a changed %s no longer verifies, and saves the change', async (_name, change) => {
    const id = await givenWood();
    const data = await updated(id, change);
    expect(data).toMatchObject({ ...change, has_ihi: false, ihi_reverified: true });
    expect(data).not.toHaveProperty('ihi_status');
    const row = await readPatientRow(t, id);
    expect(row).toMatchObject({ ...change, ihi_number_encrypted: null, ihi_status: null, ihi_record_status: null, ihi_verified_at: null });
  });

  it('stores the IHI another identifier finds for the new demographics', async () => {
    const id = await givenWood();
    const mona = DEMO.mobileOnly;
    const data = await updated(id, { given_name: mona.given_name, family_name: mona.family_name, date_of_birth: mona.date_of_birth, phone: mona.phone });
    expect(data).toMatchObject({ has_ihi: true, ihi_reverified: true });
    expect(await storedIhi(id)).toBe(mona.ihi_number);
  });

  it('verifies a new IHI sent in the body and stores it only when it verifies', async () => {
    const patient = await api.create(patientBody(api.g, DEMO.emailOnly, { email: 'other@example.com' }));
    const id = patient.json().data.platform_patient_id;
    expect(patient.json().data.has_ihi).toBe(false);
    const data = await updated(id, { ihi_number: DEMO.emailOnly.ihi_number });
    expect(data).toMatchObject({ has_ihi: true, ihi_reverified: true });
    expect(await storedIhi(id)).toBe(DEMO.emailOnly.ihi_number);
    // The IHI sent replaces the one held, as on create: it is searched first and, when it
    // does not belong to these demographics, the other identifiers are tried without it.
    const wrong = await updated(id, { ihi_number: wood.ihi_number });
    expect(wrong).toMatchObject({ has_ihi: false, ihi_reverified: true });
    expect(await storedIhi(id)).toBeNull();
  });

  it('clears the IHI sent as null without a search', async () => {
    const id = await givenWood();
    const searches = t.hi.searches.length;
    expect(await updated(id, { ihi_number: null })).toMatchObject({ has_ihi: false, ihi_reverified: false });
    expect(t.hi.searches.length).toBe(searches);
  });

  it('refuses with 422 HI_SERVICE_NOT_VERIFIED and saves nothing when the record found is not verified', async () => {
    const id = await givenWood();
    const percy = DEMO.activeProvisional;
    const before = await snapshotDatabase(t.deps.database);
    const response = await api.update(id, { given_name: percy.given_name, family_name: percy.family_name, date_of_birth: percy.date_of_birth, sex: percy.sex, ...medicareOf(percy) });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([{ field: 'medicare_card_number', message: expect.stringContaining('PROVISIONAL'), code: 'HI_SERVICE_NOT_VERIFIED' }]);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });

  it('answers 503 and saves nothing when the HI Service is unreachable', async () => {
    const id = await givenWood();
    const otto = DEMO.unreachable;
    const before = await snapshotDatabase(t.deps.database);
    const response = await api.update(id, { given_name: otto.given_name, family_name: otto.family_name, date_of_birth: otto.date_of_birth, sex: otto.sex, ...medicareOf(otto) });
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe('SERVICE_UNAVAILABLE');
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });

  it('answers 400 for a demographic change in an organization without HPI-O', async () => {
    const notReady = await givenClient(t, { hpio: null });
    const id = await givenImportedPatient(t, notReady.g, 'IMPORTED-NR', { ihiNumber: wood.ihi_number });
    const response = await notReady.update(id, { given_name: 'Changed' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.detail).toContain('HPI-O');
    expect((await notReady.update(id, { title: 'Dr' })).statusCode).toBe(200);
  });
});

describe('validation', () => {
  it('reports schema and identifier failures together in one 422', async () => {
    const id = await givenWood();
    const response = await api.update(id, { phone: '0298765432', email: 'nope', date_of_birth: '2030-01-01', sex: 'Q', medicare_irn: '12', australian_address: { postcode: '30' } });
    expect(response.statusCode).toBe(422);
    const fields = response.json().error.validation.map((i: { field: string }) => i.field).sort();
    expect(fields).toEqual([
      'australian_address.postcode',
      'australian_address.state',
      'australian_address.street_name',
      'australian_address.street_number',
      'australian_address.suburb',
      'date_of_birth',
      'email',
      'medicare_irn',
      'phone',
      'sex',
    ]);
  });

  it('requires a DVA file number, sent or stored, with a card colour', async () => {
    const id = await givenWood();
    const response = await api.update(id, { dva_card_color: 'G', phone: 'bad' });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual(
      expect.arrayContaining([
        { field: 'dva_file_number', message: 'is required when dva_card_color is set', code: 'REQUIRED_FIELD' },
        expect.objectContaining({ field: 'phone' }),
      ]),
    );
    await updated(id, { dva_file_number: 'N 908030', dva_card_color: 'orange' });
    await updated(id, { dva_card_color: 'W' });
    expect((await api.update(id, { dva_file_number: null })).statusCode).toBe(422);
  });

  it('rejects both address keys at once', async () => {
    const id = await givenWood();
    const address = wood.australian_street_address;
    const response = await api.update(id, { australian_address: address, australian_street_address: address });
    expect(response.json().error.validation).toEqual([expect.objectContaining({ field: 'australian_address' })]);
  });
});

describe('tenancy and credentials', () => {
  it("answers 404 for another organization's patient, an unknown id and a non-UUID id", async () => {
    const other = await givenClient(t);
    const theirs = (await other.create(patientBody(other.g, wood, medicareOf(wood)))).json().data.platform_patient_id;
    for (const patientId of [theirs, '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c', 'not-a-uuid', "1' or '1'='1"]) {
      const response = await api.update(encodeURIComponent(patientId), { title: 'Dr' });
      expect(response.statusCode, patientId).toBe(404);
      expect(response.json().code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await readPatientRow(t, theirs)).title).toBeNull();
  });

  it('answers 404 for a path user of another organization', async () => {
    const id = await givenWood();
    const other = await givenClient(t);
    expect((await api.update(id, { title: 'Dr' }, other.g.userId)).statusCode).toBe(404);
  });

  it("rejects another organization's token with 401", async () => {
    const id = await givenWood();
    const other = await givenClient(t);
    const foreign = clientFor(t, { ...api.g, organizationSecret: other.g.organizationSecret }, other.token);
    expect((await foreign.update(id, { title: 'Dr' })).statusCode).toBe(401);
  });

  it('needs the update:patient scope', async () => {
    const id = await givenWood();
    const narrow = clientFor(t, api.g, await requestToken(t, api.g, ['create:patient']));
    const response = await narrow.update(id, { title: 'Dr' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});
