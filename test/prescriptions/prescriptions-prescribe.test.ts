// Who may prescribe what for whom, through POST /v1/test-helpers/.../prescriptions: the
// medicine (a catalog drug, the prescriber's own drug, or an item written in full), the
// limits, the delivery, and every status the route answers, in the order the rules run
// (404 for the path, then one 422 for the body, then 409).
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/index.ts';
import { SANDBOX_PHARMACIES } from '../../src/prescriptions/index.ts';
import { fieldsOf, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { bearer, requestToken, useTestApp } from '../given.ts';
import { givenClinic, givenPatient, givenSecondPrescriber, prescribeBody, prescriptionsClient, send } from './prescriptions-given.ts';

let fredId: string;

const { t, c, api, ownerHeaders } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const api = prescriptionsClient(t, c);
  const ownerHeaders = bearer(await requestToken(t, c.g, [...SCOPES], c.g.ownerId), c.g);
  fredId = await givenSecondPrescriber(t, c);
  return { c, api, ownerHeaders };
});

async function catalogDrug(fields: Record<string, unknown>): Promise<string> {
  const response = await send(t, 'POST', `/v1/organizations/${c.g.organizationId}/custom-drugs`, ownerHeaders, [validDrug(fields)]);
  return response.json().data.created[0].custom_drug_id;
}

async function ownDrug(userId: string, fields: Record<string, unknown>): Promise<string> {
  const response = await send(t, 'POST', `/v1/organizations/${c.g.organizationId}/users/${userId}/custom-drugs`, ownerHeaders, validDrug(fields));
  expect(response.statusCode).toBe(201);
  return response.json().data.custom_drug_id;
}

/** Sends `body` and expects a 422 that changed nothing; returns the fields it names. */
async function refusedFields(body: unknown, options: { userId?: string; patientId?: string } = {}): Promise<string[]> {
  const before = await snapshotDatabase(t.deps.database);
  const response = await api.prescribe(body, options);
  expect(response.statusCode, response.body).toBe(422);
  expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  return fieldsOf(response);
}

const withoutItem = ({ item_name, item_strength, item_form, route_administration, schedule_number, ...rest }: Record<string, unknown>) => rest;

describe('the medicine', () => {
  it("copies an organization catalog drug's fields, by custom_drug_id", async () => {
    const id = await catalogDrug({ item_generic_name: 'Cefalexin', custom_product_id: 'PMS-DRUG-9', quantity: '20', max_repeats: '1', patient_instructions: 'With food', doctor_instructions: 'Check allergy' });
    const response = await api.prescribe({ ...withoutItem(prescribeBody()), custom_drug_id: id, quantity: undefined, patient_instructions: undefined, repeats: 1 });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({
      item_name: 'Cefalexin',
      item_strength: '500mg',
      item_form: 'Capsule',
      route_administration: 'Oral',
      schedule_number: 'S4',
      quantity: '20',
      number_of_repeats_authorised: '1',
      patient_instructions: 'With food',
      doctor_notes: 'Check allergy',
      custom_drug_details: { custom_product_id: 'PMS-DRUG-9' },
    });
  });

  it("takes the prescriber's own drug, and the body's quantity over the drug's", async () => {
    const id = await ownDrug(c.g.userId, { item_generic_name: 'Own drug', quantity: '30' });
    const response = await api.prescribe({ ...withoutItem(prescribeBody()), custom_drug_id: id.toUpperCase(), quantity: '12' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ item_name: 'Own drug', quantity: '12', custom_drug_details: {} });
  });

  it("refuses another prescriber's own drug, an unknown id, and a drug with item fields", async () => {
    const fredsDrug = await ownDrug(fredId, { item_generic_name: "Fred's drug" });
    expect(await refusedFields({ ...withoutItem(prescribeBody()), custom_drug_id: fredsDrug })).toEqual(['custom_drug_id']);
    expect(await refusedFields({ ...withoutItem(prescribeBody()), custom_drug_id: 'not-a-drug' })).toEqual(['custom_drug_id']);
    const catalog = await catalogDrug({});
    expect(await refusedFields(prescribeBody({ custom_drug_id: catalog }))).toEqual(['custom_drug_id']);
  });

  it("refuses a drug whose quantity is out of range unless the body sends one, and repeats over the drug's max_repeats", async () => {
    const id = await catalogDrug({ quantity: '1200', max_repeats: '2' });
    const base = { ...withoutItem(prescribeBody()), custom_drug_id: id, quantity: undefined, repeats: 1 };
    const response = await api.prescribe(base);
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([
      { field: 'quantity', message: "must be a whole number from 1 to 999 (the custom drug's quantity is 1200; send quantity)", code: 'VALIDATION_ERROR' },
    ]);
    expect((await api.prescribe({ ...base, quantity: 60 })).statusCode).toBe(201);
    expect(await refusedFields({ ...base, quantity: 60, repeats: 3 })).toEqual(['repeats']);
  });

  it('needs item_name and quantity when no custom_drug_id is sent', async () => {
    expect(await refusedFields({ delivery: { method: 'SMS', recipient_type: 'PATIENT' } })).toEqual(['item_name', 'quantity']);
  });

  it('shows the boolean flags that were sent, and no other', async () => {
    const response = await api.prescribe(prescribeBody({ private_prescription: true, brand_substitution_not_allowed: false }));
    const data = response.json().data;
    expect(data).toMatchObject({ private_prescription: true, brand_substitution_not_allowed: false });
    expect(data).not.toHaveProperty('emergency_supply');
  });
});

describe('the limits', () => {
  it.each([
    ['quantity', 1], ['quantity', 99], ['quantity', 999], ['quantity', '999'], ['repeats', 0], ['repeats', 99], ['repeat_interval_days', 1], ['repeat_interval_days', 365],
    ['patient_instructions', 'x'.repeat(250)], ['doctor_instructions', 'x'.repeat(50)], ['item_name', 'x'.repeat(280)],
  ])('accepts %s %j', async (field, value) => {
    expect((await api.prescribe(prescribeBody({ [field]: value }))).statusCode).toBe(201);
  });

  it.each([
    ['quantity', 0], ['quantity', 1000], ['quantity', '1000'], ['quantity', '1.5'], ['quantity', 2.5], ['quantity', 'ten'], ['quantity', true],
    ['repeats', -1], ['repeats', 100], ['repeat_interval_days', 0], ['repeat_interval_days', 366],
    ['patient_instructions', 'x'.repeat(251)], ['doctor_instructions', 'x'.repeat(51)], ['item_name', 'x'.repeat(281)], ['item_name', ''],
    ['pbs_code', '85-2L'], ['schedule_number', '4'], ['private_prescription', 'yes'], ['reserved_1', 7], ['reserved_2', 'x'.repeat(1001)],
  ])('refuses %s %j with a 422 on that field', async (field, value) => {
    expect(await refusedFields(prescribeBody({ [field]: value }))).toEqual([field]);
  });

  it('reports every violation together in one 422', async () => {
    const body = prescribeBody({ item_name: undefined, quantity: 0, repeats: 100, repeat_interval_days: 0, patient_instructions: 'x'.repeat(251), doctor_instructions: 'x'.repeat(51), delivery: undefined });
    expect((await refusedFields(body)).sort()).toEqual(['delivery', 'doctor_instructions', 'item_name', 'patient_instructions', 'quantity', 'repeat_interval_days', 'repeats'].sort());
  });
});

describe('the delivery', () => {
  it("goes by e-mail to the patient's address", async () => {
    const response = await api.prescribe(prescribeBody({ delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } }));
    expect(response.json().data.delivery).toEqual({ method: 'EMAIL', recipient_type: 'PATIENT', destination: 'j.wood@example.com' });
  });

  it.each(SANDBOX_PHARMACIES.map((pharmacy) => [pharmacy.name, pharmacy] as const))('goes to %s by e-mail or SMS', async (_name, pharmacy) => {
    for (const method of ['EMAIL', 'SMS'] as const) {
      const response = await api.prescribe(prescribeBody({ delivery: { method, recipient_type: 'PHARMACY', pharmacy_id: pharmacy.pharmacy_id } }));
      expect(response.json().data.delivery).toEqual({
        method,
        recipient_type: 'PHARMACY',
        destination: method === 'EMAIL' ? pharmacy.email : pharmacy.mobile,
        pharmacy: { pharmacy_id: pharmacy.pharmacy_id, name: pharmacy.name },
      });
    }
  });

  it.each([
    ['a pharmacy outside the directory', { method: 'SMS', recipient_type: 'PHARMACY', pharmacy_id: '00000000-0000-4000-8000-000000000000' }, 'delivery.pharmacy_id'],
    ['a pharmacy without pharmacy_id', { method: 'SMS', recipient_type: 'PHARMACY' }, 'delivery.pharmacy_id'],
    ['a pharmacy_id for the patient', { method: 'SMS', recipient_type: 'PATIENT', pharmacy_id: SANDBOX_PHARMACIES[0]!.pharmacy_id }, 'delivery.pharmacy_id'],
    ['an unknown method', { method: 'FAX', recipient_type: 'PATIENT' }, 'delivery.method'],
  ])('refuses %s', async (_case, delivery, field) => {
    expect(await refusedFields(prescribeBody({ delivery }))).toEqual([field]);
  });

  it('refuses SMS to a patient without a mobile number, naming the fix', async () => {
    const { patientId } = await givenPatient(t, c, { phone: undefined });
    const response = await api.prescribe(prescribeBody(), { patientId });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation[0]).toMatchObject({ field: 'delivery.method', message: expect.stringContaining('no mobile number') });
  });

  it('lists every sandbox pharmacy in the partners\' prescriptions page', async () => {
    const fs = await import('node:fs');
    const page = fs.readFileSync(new URL('../../docs/partners/prescriptions.md', import.meta.url), 'utf8');
    for (const pharmacy of SANDBOX_PHARMACIES) expect(page).toContain(`| \`${pharmacy.pharmacy_id}\` | ${pharmacy.name} |`);
  });
});

describe('who prescribes, for whom', () => {
  it('records the acting prescriber (the path user) on the prescription', async () => {
    const response = await api.prescribe(prescribeBody(), { userId: fredId });
    expect(response.json().data.prescriber).toEqual({ given_name: 'Fred', family_name: 'Citizen', user_id: fredId });
  });

  it('answers 409 naming what is missing when the acting user cannot prescribe, and only once the body is valid', async () => {
    const response = await api.prescribe(prescribeBody(), { userId: c.g.ownerId });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.detail).toContain('cannot prescribe (is_escript_ready.can_prescribe is false): not met: the user holds the provider role');
    expect((await api.prescribe(prescribeBody({ quantity: 0 }), { userId: c.g.ownerId })).statusCode).toBe(422);
  });

  it('answers 404 for a path user or patient outside the organization, before judging the body', async () => {
    const other = await givenClinic(t);
    const unknownUser = await api.prescribe({}, { userId: other.g.userId });
    expect(unknownUser.statusCode).toBe(404);
    expect(unknownUser.json().error.detail).toBe('User not found');
    for (const patientId of [other.patientId, '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c', 'not-a-uuid']) {
      const response = await api.prescribe({}, { patientId });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { type: 'https://api.erx.example/errors/patient-not-found', title: 'Patient not found' } });
    }
  });

  it('answers 400 for malformed JSON, 415 for a body that is not JSON, 413 for one over 32 KB', async () => {
    const url = `/v1/test-helpers/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}/prescriptions`;
    const raw = (payload: string, type: string) => t.app.inject({ method: 'POST', url, headers: { ...c.headers, 'content-type': type }, payload });
    expect((await raw('{"item_name":', 'application/json')).statusCode).toBe(400);
    expect((await raw('item_name=x', 'text/plain')).statusCode).toBe(415);
    expect((await raw(JSON.stringify(prescribeBody({ reason_for_prescribing: 'x'.repeat(33 * 1024) })), 'application/json')).statusCode).toBe(413);
  });

  it('needs the sandbox:prescribe scope (401 without it)', async () => {
    const token = await requestToken(t, c.g, SCOPES.filter((scope) => scope !== 'sandbox:prescribe'));
    const response = await send(t, 'POST', `/v1/test-helpers/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}/prescriptions`, bearer(token, c.g), prescribeBody());
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});
