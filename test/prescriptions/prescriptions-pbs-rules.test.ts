// Each PBS rule through the sandbox test helper: its refusal (a 422 whose validation entry names
// the field, nothing stored) and the prescription that keeps it (201, read back). The PBS
// items are the catalogue's (pbs-given.ts).
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenPbsItems, PBS_TEST_ITEMS } from './pbs-given.ts';
import { givenClinic, givenPatient, prescribeBody, prescriptionsClient } from './prescriptions-given.ts';

const { t, c, api, veteran } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  await givenPbsItems(t);
  const veteran = await givenPatient(t, c, { dva_file_number: HI_DEMO_PATIENTS.activeVerified.dva_file_number });
  return { c, api: prescriptionsClient(t, c), veteran: { patientId: veteran.patientId } };
});

const { unrestricted, authority, streamlined, rpbs } = PBS_TEST_ITEMS;

/** A PBS prescription of `code`, written by code alone (the Schedule gives the names). */
const pbsBody = (code: string, fields: Record<string, unknown> = {}) => {
  const { item_name, item_strength, item_form, schedule_number, ...rest } = prescribeBody({ quantity: 10, repeats: 0, ...fields });
  return { ...rest, pbs_code: code };
};

type Case = { rule: string; body: Record<string, unknown>; patient?: 'veteran'; field?: string; message?: string };

const REFUSED: Case[] = [
  { rule: 'private carries no PBS code', body: pbsBody(unrestricted.pbs_code, { private_prescription: true }), field: 'pbs_code', message: 'must be left out of a private prescription (private_prescription is true)' },
  { rule: 'the code is in the Schedule', body: pbsBody('9999X'), field: 'pbs_code', message: 'is not an item of the current PBS Schedule (9999X)' },
  { rule: 'RPBS only with a DVA file number', body: pbsBody(rpbs.pbs_code), field: 'pbs_code', message: 'is 2004N, a Repatriation (RPBS) item: it can be prescribed only for a patient with a DVA file number' },
  { rule: 'an authority item needs its approval number', body: pbsBody(authority.pbs_code), field: 'pbsdva_authority_number', message: 'is required: 2002L is an authority-required PBS item; enter its authority approval number' },
  { rule: 'a streamlined item needs its code', body: pbsBody(streamlined.pbs_code), field: 'pbsdva_authority_number', message: 'is required: 2003M is a streamlined authority item; enter one of its streamlined codes (4269, 4381)' },
  { rule: "a streamlined item needs one of its own codes", body: pbsBody(streamlined.pbs_code, { pbsdva_authority_number: '1234' }), field: 'pbsdva_authority_number', message: 'is not a streamlined code of 2003M (its codes: 4269, 4381)' },
  { rule: 'the maximum quantity', body: pbsBody(unrestricted.pbs_code, { quantity: 21 }), field: 'quantity', message: 'must not exceed 20, the PBS maximum quantity of 2001K, without an authority approval number' },
  { rule: 'the maximum repeats', body: pbsBody(unrestricted.pbs_code, { repeats: 1 }), field: 'repeats', message: 'must not exceed 0, the PBS maximum repeats of 2001K, without an authority approval number' },
  { rule: 'a streamlined code is no approval for more', body: pbsBody(streamlined.pbs_code, { pbsdva_authority_number: '4269', quantity: 29 }), field: 'quantity', message: 'must not exceed 28, the PBS maximum quantity of 2003M, without an authority approval number' },
];

const ACCEPTED: Case[] = [
  { rule: 'an unrestricted item within its maxima', body: pbsBody(unrestricted.pbs_code, { quantity: 20 }) },
  { rule: 'a private prescription without a PBS code', body: prescribeBody({ private_prescription: true, quantity: 999 }) },
  { rule: 'an RPBS item for a patient with a DVA file number', body: pbsBody(rpbs.pbs_code), patient: 'veteran' },
  { rule: 'an authority item with its approval number', body: pbsBody(authority.pbs_code, { pbsdva_authority_number: 'A1234567' }) },
  { rule: 'an authority item approved by telephone', body: pbsBody(authority.pbs_code, { phone_approval_authority_number: '7654321' }) },
  { rule: 'a streamlined item with one of its codes', body: pbsBody(streamlined.pbs_code, { pbsdva_authority_number: '4381' }) },
  { rule: 'more than the maxima with an authority approval number', body: pbsBody(unrestricted.pbs_code, { quantity: 200, repeats: 3, pbsdva_authority_number: 'B7654321' }) },
];

describe('the PBS rules through the test helper', () => {
  it.each(REFUSED)('refuses: $rule', async ({ body, field, message }) => {
    const before = await snapshotDatabase(t.deps.database);
    const response = await api.prescribe(body);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(response.json().error.validation).toEqual([{ field, message, code: 'VALIDATION_ERROR' }]);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });

  it.each(ACCEPTED)('accepts: $rule', async ({ body, patient }) => {
    const response = await api.prescribe(body, patient === 'veteran' ? veteran : {});
    expect(response.statusCode, response.body).toBe(201);
    const read = (await api.read(response.json().data.scid, patient === 'veteran' ? veteran : {})).json().data.prescription;
    for (const name of ['pbs_code', 'pbsdva_authority_number', 'phone_approval_authority_number', 'private_prescription']) {
      if (body[name] !== undefined) expect(read[name]).toBe(body[name]);
    }
  });

  it("writes a PBS item's names from the Schedule when the body gives only its code", async () => {
    const response = await api.prescribe(pbsBody(streamlined.pbs_code, { pbsdva_authority_number: '4269' }));
    expect(response.json().data).toMatchObject({ pbs_code: '2003M', item_name: 'Rivaroxaban', item_strength: '20 mg', item_form: 'tablet', pbsdva_authority_number: '4269' });
    expect(response.json().data).not.toHaveProperty('schedule_number');
  });

  it('keeps the names the body gives over the Schedule\'s', async () => {
    const response = await api.prescribe({ ...pbsBody(unrestricted.pbs_code), item_name: 'Amoxicillin trihydrate', schedule_number: 'S4' });
    expect(response.json().data).toMatchObject({ pbs_code: '2001K', item_name: 'Amoxicillin trihydrate', item_strength: '500 mg', schedule_number: 'S4' });
  });

  it('reports every broken rule together, each on its field', async () => {
    const response = await api.prescribe(pbsBody(authority.pbs_code, { quantity: 29, repeats: 1 }));
    expect(response.json().error.validation.map((issue: { field: string }) => issue.field)).toEqual(['pbsdva_authority_number', 'quantity', 'repeats']);
  });

  it('needs a medicine: an item_name, a custom drug or a PBS code', async () => {
    const { item_name, ...withoutName } = prescribeBody();
    const response = await api.prescribe(withoutName);
    expect(response.json().error.validation).toEqual([
      { field: 'item_name', message: 'item_name is required when no custom_drug_id or pbs_code is sent', code: 'REQUIRED_FIELD' },
    ]);
  });

  it("another organization cannot prescribe for this organization's veteran: 404, nothing stored", async () => {
    const other = prescriptionsClient(t, await givenClinic(t));
    const before = await snapshotDatabase(t.deps.database);
    const response = await other.prescribe(pbsBody(rpbs.pbs_code), veteran);
    expect(response.statusCode).toBe(404);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    expect((await api.prescribe(pbsBody(rpbs.pbs_code), { userId: c.g.userId, ...veteran })).statusCode).toBe(201);
  });
});
