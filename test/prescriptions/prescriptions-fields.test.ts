// Every field of the vendor's Prescription, written through the sandbox test helper and read
// back through the read API; the per-prescriber script number (sequential, also when
// prescriptions are written at once); quantity 1 to 999; the rules that need no PBS item (a
// private prescription carries no PBS code; a code the Schedule lacks); and another
// organization's ids. The PBS item rules are in prescriptions-pbs-rules.test.ts.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SANDBOX_PHARMACIES } from '../../src/prescriptions/index.ts';
import { PRESCRIPTION_RULES } from '../../src/prescriptions/prescription-rules.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenPbsItems, PBS_TEST_ITEMS } from './pbs-given.ts';
import { givenClinic, givenPrescription, givenSecondPrescriber, outboxEvents, prescribeBody, prescriptionsClient, storedPrescription } from './prescriptions-given.ts';

/**
 * The properties of the vendor's `Prescription` schema (parchment-openapi-2026-06.json), written
 * out here: the reference file is not part of the project.
 */
const VENDOR_PRESCRIPTION_PROPERTIES = [
  'prescription_type', 'url', 'scid', 'status', 'created_date', 'item_name', 'quantity', 'number_of_repeats_authorised',
  'repeat_intervals', 'pbs_code', 'item_strength', 'item_form', 'route_administration', 'pbsdva_authority_number',
  'phone_approval_authority_number', 'schedule_number', 'private_prescription', 'emergency_supply', 'brand_substitution_not_allowed',
  'reason_for_prescribing', 'patient_instructions', 'doctor_notes', 'pharmacy_name', 'regulation_24', 'controlled_substance_reference',
  'unusual_dose_flag', 'unusual_qty_flag', 'my_sl_consent', 'send_to_pharmacy', 'unlisted_item_repat_authority', 'prescriber_script_number',
  'annotations', 'prescriber', 'delivery', 'custom_drug_details', 'error',
].sort();

/** What erx answers beside the vendor's properties: the script's legal metadata (PBS regulations s41A). */
const ERX_PRESCRIPTION_PROPERTIES = ['dispensing', 'legal_metadata'];
const ANSWERED_PROPERTIES = [...VENDOR_PRESCRIPTION_PROPERTIES, ...ERX_PRESCRIPTION_PROPERTIES].sort();

const { t, c, api } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  await givenPbsItems(t);
  return { c, api: prescriptionsClient(t, c) };
});

const pharmacy = SANDBOX_PHARMACIES[1]!;

/** Every field a prescription without a PBS item can carry. */
const everyField = () =>
  prescribeBody({
    private_prescription: true,
    emergency_supply: true,
    brand_substitution_not_allowed: true,
    regulation_24: false,
    unusual_dose_flag: true,
    unusual_qty_flag: false,
    my_sl_consent: true,
    unlisted_item_repat_authority: false,
    pbsdva_authority_number: 'a1234567',
    phone_approval_authority_number: '7654321',
    reason_for_prescribing: 'Community-acquired pneumonia',
    doctor_instructions: 'Review in a week',
    controlled_substance_reference: 'PERMIT-42',
    annotations: 'Dispense in original pack',
    quantity: 999,
    delivery: { method: 'EMAIL', recipient_type: 'PHARMACY', pharmacy_id: pharmacy.pharmacy_id },
  });

describe('every field of the vendor Prescription', () => {
  it('the read API declares exactly the vendor schema\'s properties, and erx\'s legal metadata beside them', async () => {
    const document = t.app.swagger() as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: any }> }> }>> };
    const path = Object.keys(document.paths).find((p) => /\/prescriptions\/\{scid\}$/.test(p) && !p.includes('test-helpers'))!;
    const schema = document.paths[path]!.get!.responses['200']!.content['application/json']!.schema;
    expect(Object.keys(schema.properties.data.properties.prescription.properties).sort()).toEqual(ANSWERED_PROPERTIES);
  });

  it('writes each field through the test helper and reads every one back, named and typed as the vendor does', async () => {
    const created = await api.prescribe(everyField());
    expect(created.statusCode, created.body).toBe(201);
    const { scid } = created.json().data;
    const read = (await api.read(scid)).json().data.prescription;
    expect(read).toMatchObject({
      quantity: '999',
      private_prescription: true,
      emergency_supply: true,
      brand_substitution_not_allowed: true,
      regulation_24: false,
      unusual_dose_flag: true,
      unusual_qty_flag: false,
      my_sl_consent: true,
      unlisted_item_repat_authority: false,
      pbsdva_authority_number: 'A1234567',
      phone_approval_authority_number: '7654321',
      reason_for_prescribing: 'Community-acquired pneumonia',
      doctor_notes: 'Review in a week',
      controlled_substance_reference: 'PERMIT-42',
      annotations: 'Dispense in original pack',
      pharmacy_name: pharmacy.name,
      send_to_pharmacy: pharmacy.pharmacy_id,
      prescriber_script_number: expect.stringMatching(/^\d+$/),
    });
    expect(read).toEqual(created.json().data);
    // Every vendor property but pbs_code (a private prescription has none) and error (only in status Error).
    const absent = VENDOR_PRESCRIPTION_PROPERTIES.filter((name) => !(name in read));
    expect(absent).toEqual(['error', 'pbs_code']);
    for (const name of Object.keys(read)) expect(ANSWERED_PROPERTIES).toContain(name);
  });

  it('answers every vendor property but error (only in status Error) for a PBS prescription with every field set', async () => {
    const created = await api.prescribe({ ...everyField(), private_prescription: false, pbs_code: PBS_TEST_ITEMS.authority.pbs_code, quantity: 28 });
    expect(created.statusCode, created.body).toBe(201);
    const read = (await api.read(created.json().data.scid)).json().data.prescription;
    expect(Object.keys(read).sort()).toEqual(ANSWERED_PROPERTIES.filter((name) => name !== 'error'));
    expect(read).toMatchObject({ pbs_code: '2002L', private_prescription: false, pbsdva_authority_number: 'A1234567' });
  });

  it('keeps the clinical text out of the audit trail, and the event carries ids only (as the vendor\'s does)', async () => {
    const seq = await lastAuditSeq(t);
    const created = await api.prescribe(everyField());
    const { scid } = created.json().data;
    await api.read(scid);
    const entries = JSON.stringify(await auditEntriesAfter(t, seq));
    expect(entries).toContain(scid);
    for (const text of ['Community-acquired pneumonia', 'Review in a week', 'PERMIT-42', 'Dispense in original pack', 'A1234567', '7654321', 'Amoxicillin']) {
      expect(entries).not.toContain(text);
    }
    const event = (await outboxEvents(t, c.g.organizationId)).find((e) => (e.envelope.data as { scid?: string }).scid === scid)!;
    expect(Object.keys(event.envelope.data as object).sort()).toEqual(['partner_patient_id', 'patient_id', 'scid', 'user_id']);
  });

  it('leaves the fields that were not set out of the answer, and has no pharmacy for a token sent to the patient', async () => {
    const data = await givenPrescription(t, c);
    for (const name of ['pbsdva_authority_number', 'phone_approval_authority_number', 'controlled_substance_reference', 'annotations', 'pharmacy_name', 'send_to_pharmacy', 'pbs_code']) {
      expect(data).not.toHaveProperty(name);
    }
  });

  it('takes quantity 1 to 999 and refuses 0 and 1000 beside the field, changing nothing', async () => {
    for (const quantity of [1, 999, '999']) expect((await api.prescribe(prescribeBody({ quantity }))).statusCode).toBe(201);
    for (const quantity of [0, 1000, '1000']) {
      const before = await snapshotDatabase(t.deps.database);
      const response = await api.prescribe(prescribeBody({ quantity }));
      expect(response.statusCode).toBe(422);
      expect(response.json().error.validation).toEqual([{ field: 'quantity', message: 'must be a whole number from 1 to 999', code: 'VALIDATION_ERROR' }]);
      expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    }
  });

  it.each([
    ['pbsdva_authority_number', 'A-123'],
    ['pbsdva_authority_number', 'x'.repeat(21)],
    ['phone_approval_authority_number', ''],
    ['controlled_substance_reference', 'x'.repeat(51)],
    ['annotations', 'x'.repeat(251)],
  ])('refuses %s %j as a validation error on that field', async (field, value) => {
    const response = await api.prescribe(prescribeBody({ [field]: value }));
    expect(response.statusCode).toBe(422);
    expect(new Set(response.json().error.validation.map((issue: { field: string }) => issue.field))).toEqual(new Set([field]));
  });
});

describe('the rules that need no PBS item', () => {
  it('refuses a private prescription that carries a PBS code, beside pbs_code', async () => {
    const response = await api.prescribe(prescribeBody({ private_prescription: true, pbs_code: '8502L' }));
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([
      { field: 'pbs_code', message: 'must be left out of a private prescription (private_prescription is true)', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('refuses a PBS code the Schedule does not hold', async () => {
    const response = await api.prescribe(prescribeBody({ pbs_code: '99999Z' }));
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([{ field: 'pbs_code', message: 'is not an item of the current PBS Schedule (99999Z)', code: 'VALIDATION_ERROR' }]);
  });
});

describe('prescriber_script_number', () => {
  it("numbers each prescriber's prescriptions on from 1, one sequence per prescriber", async () => {
    const clinic = await givenClinic(t);
    const fredId = await givenSecondPrescriber(t, clinic);
    const numbers = [];
    for (let index = 0; index < 3; index++) numbers.push((await givenPrescription(t, clinic)).prescriber_script_number);
    const fred = await prescriptionsClient(t, clinic).prescribe(prescribeBody(), { userId: fredId });
    expect(numbers).toEqual(['1', '2', '3']);
    expect(fred.json().data.prescriber_script_number).toBe('1');
  });

  it('gives prescriptions written at once different, consecutive numbers, and a refused one takes none', async () => {
    const clinic = await givenClinic(t);
    const client = prescriptionsClient(t, clinic);
    const responses = await Promise.all(Array.from({ length: 12 }, () => client.prescribe(prescribeBody())));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
    const numbers = responses.map((r) => Number(r.json().data.prescriber_script_number)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    expect((await client.prescribe(prescribeBody({ quantity: 0 }))).statusCode).toBe(422);
    expect((await givenPrescription(t, clinic)).prescriber_script_number).toBe('13');
  });

  it('is stored with the prescription and unique per prescriber', async () => {
    const { scid } = await givenPrescription(t, c);
    const row = await storedPrescription(t, scid);
    const clash = t.deps.database
      .insertInto('prescriptions')
      .values({ ...row!, id: crypto.randomUUID(), scid: `${scid.slice(0, 17)}X`, token: 'another-token' });
    await expect(clash.execute()).rejects.toThrow(/unique|UNIQUE/);
  });
});

describe("another organization's ids", () => {
  it("never reads another organization's prescription: 404 by SCID, and not in the list", async () => {
    const other = await givenClinic(t);
    const theirs = await givenPrescription(t, other, { annotations: 'Theirs' });
    const response = await api.read(theirs.scid);
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('Theirs');
    const underTheirPatient = await api.read(theirs.scid, { patientId: other.patientId });
    expect(underTheirPatient.statusCode).toBe(404);
    expect((await api.list()).json().data.prescriptions.map((p: { scid: string }) => p.scid)).not.toContain(theirs.scid);
  });

  it("never writes for another organization's prescriber or patient: 404, nothing stored", async () => {
    const other = await givenClinic(t);
    const before = await snapshotDatabase(t.deps.database);
    expect((await api.prescribe(everyField(), { userId: other.g.userId })).statusCode).toBe(404);
    expect((await api.prescribe(everyField(), { patientId: other.patientId })).statusCode).toBe(404);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });
});

describe('the partners\' prescriptions page (docs/partners/prescriptions.md)', () => {
  const section = (() => {
    const page = fs.readFileSync('docs/partners/prescriptions.md', 'utf8');
    const start = page.indexOf('\n## Every field, and the rules\n');
    expect(start).toBeGreaterThan(0);
    return page.slice(start, page.indexOf('\n## ', start + 1));
  })();

  it('lists each field of the prescription, and a row for each rule of the table', () => {
    const fields = VENDOR_PRESCRIPTION_PROPERTIES.filter((name) => !['prescription_type', 'url', 'scid', 'status', 'created_date', 'item_name', 'quantity', 'number_of_repeats_authorised', 'repeat_intervals', 'item_strength', 'item_form', 'route_administration', 'patient_instructions', 'prescriber', 'delivery', 'custom_drug_details', 'error'].includes(name));
    expect(fields).toHaveLength(19);
    for (const name of fields) expect(section, name).toContain(`\`${name}\``);
    const ruleRows = section.slice(section.indexOf('The rules, each refused')).split('\n').filter((line) => /^\| `(pbs_code|pbsdva_authority_number|quantity|repeats)` \|/.test(line));
    expect(ruleRows).toHaveLength(PRESCRIPTION_RULES.length + 1);
  });
});
