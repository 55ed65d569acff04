// The PDF of a paper prescription, read back: A5, every item of the script content rules that
// applies printed with its words, the SCID's barcode decoding to the SCID (and to nothing else),
// the conformance id and unique id in the document's metadata too.
import { describe, expect, it } from 'vitest';
import { encryptSecret } from '../platform/secrets.ts';

const KEY = Buffer.alloc(32, 3);
import { decodeCode128, readPdf } from '../../test/prescriptions/pdf-reader.ts';
import type { PatientScriptIdentity } from '../patients/index.ts';
import { buildPrescriptionLegalContent } from './prescription-legal-content.ts';
import { printable, renderPrescriptionPdf } from './prescription-pdf.ts';
import type { PrescriptionRow } from './prescriptions-store.ts';
import { SCRIPT_CONTENT_RULES, SCRIPT_ITEMS } from './script-content-rules.ts';
import { scriptItemsOf } from './script-items.ts';

const SCID = '2DL7XJ4Z8QK9M3N5PA';

function row(overrides: Partial<PrescriptionRow> = {}): PrescriptionRow {
  return {
    id: '5b0c4c8e-2f9a-4a57-9d3e-0b6a1f1c2d3e', scid: SCID, token: 'x', token_page_key_encrypted: null, organization_id: 'o', patient_id: 'p', prescriber_user_id: 'u',
    status: 'Active', prescription_type: 'PAPER', item_name: 'Atorvastatin', item_strength: '40 mg', item_form: 'Tablet', route_administration: 'Oral',
    pbs_code: '8215N', schedule_number: 'S4', quantity: '30', number_of_repeats_authorised: '5', repeat_intervals: '20',
    reason_for_prescribing: null, patient_instructions: 'One tablet at night', doctor_notes: null, pbsdva_authority_number: 'AB12345',
    phone_approval_authority_number: null, controlled_substance_reference: 'CNS-40021', annotations: null, prescriber_script_number: '7',
    flags: JSON.stringify({ brand_substitution_not_allowed: true, regulation_24: true }), custom_drug_id: null, custom_product_id: null,
    prescriber_title: 'Dr', prescriber_given_name: 'Anna', prescriber_family_name: 'Smith',
    delivery_method: null, delivery_recipient_type: null, delivery_destination_encrypted: null, delivery_pharmacy_id: null, delivery_pharmacy_name: null,
    error_description: null, created_at: '2026-11-28T13:30:00.000Z', updated_at: '2026-11-28T13:30:00.000Z', updated_by_user_id: 'u',
    conformance_id: 'ADHA-CID-0042', prescriber_hpii_encrypted: encryptSecret('8003619166667284', KEY), prescriber_number: '1234567', organization_hpio: '8003624166667003',
    organization_name: 'Harbour Medical', practice_street: '12 Smith St', practice_suburb: 'Fitzroy', practice_state: 'VIC', practice_postcode: '3065', practice_phone: '0399999999',
    supplies_dispensed: null, repeats_remaining: null, last_dispensed_at: null,
    ...overrides,
  };
}

const patient: PatientScriptIdentity = {
  title: null, given_name: 'Jessica', family_name: 'Wood', date_of_birth: '1985-02-14',
  australian_street_address: { street_number: '5', street_name: 'River Rd', suburb: 'Richmond', state: 'VIC', postcode: '3121' },
  international_address: null, medicare_card_number: '2950141861', medicare_irn: '1', dva_file_number: null, dva_card_color: null, ihi_number: null,
};

describe('the PDF of a paper prescription', () => {
  it('is one A5 page printing the words of every item of the script content rules, and its SCID barcode decodes to the SCID', async () => {
    const content = buildPrescriptionLegalContent({ prescription: row(), patient }, KEY);
    const items = scriptItemsOf(content);
    // Every item applies to this prescription: nothing is left out of the check below.
    expect(SCRIPT_ITEMS.filter((item) => items[item] === null)).toEqual([]);
    const pdf = await renderPrescriptionPdf(content);
    const read = await readPdf(pdf);
    expect(read.pages).toBe(1);
    // A5 is 148 × 210 mm: 419.5 × 595.3 points.
    expect(read.sizes[0]!.width).toBeCloseTo(419.5, 0);
    expect(read.sizes[0]!.height).toBeCloseTo(595.3, 0);
    const missing = SCRIPT_CONTENT_RULES.filter((rule) => !read.text.includes(items[rule.item]!)).map((rule) => `${rule.item}: ${items[rule.item]}`);
    expect(missing).toEqual([]);
    // The words themselves, as a pharmacist reads them.
    for (const words of [
      'Dr Anna Smith', 'Harbour Medical, 12 Smith St, Fitzroy VIC 3065', '0399999999', 'Prescriber number: 1234567', 'HPI-I: 8003619166667284', 'HPI-O: 8003624166667003',
      'Patient: Jessica Wood', 'Date of birth: 14/02/1985', '5 River Rd, Richmond VIC 3121', 'Medicare 2950141861 (IRN 1)', 'PBS',
      'Date: 29/11/2026', 'Atorvastatin 40 mg Tablet', 'One tablet at night', 'Quantity: 30', 'Repeats: 5', 'at least 20 days between supplies', 'AB12345', 'Permit / approval number: CNS-40021',
      'Brand substitution not permitted', 'Regulation 24', 'signed:', `SCID: ${SCID}`, 'Conformance ID: ADHA-CID-0042', 'Prescription ID: 5b0c4c8e-2f9a-4a57-9d3e-0b6a1f1c2d3e',
    ]) expect(read.text).toContain(words);
    expect(await decodeCode128(pdf)).toBe(SCID);
    expect(String(read.info.Keywords)).toContain('conformance-id:ADHA-CID-0042');
    expect(String(read.info.Keywords)).toContain('erx-prescription-id:5b0c4c8e-2f9a-4a57-9d3e-0b6a1f1c2d3e');
  });

  it('dates the prescription by the practice\'s own time zone: 13:30 UTC on 28 November is the 29th in Melbourne, still the 28th in Perth', () => {
    expect(buildPrescriptionLegalContent({ prescription: row(), patient }, KEY).writtenOn).toBe('2026-11-29');
    expect(buildPrescriptionLegalContent({ prescription: row({ practice_state: 'WA' }), patient }, KEY).writtenOn).toBe('2026-11-28');
  });

  it('prints no barcode for a prescription without a SCID, and leaves out what does not apply', async () => {
    const content = buildPrescriptionLegalContent({ prescription: row({ scid: '', pbsdva_authority_number: null, repeat_intervals: null, flags: '{}' }), patient }, KEY);
    const pdf = await renderPrescriptionPdf(content);
    const read = await readPdf(pdf);
    expect(read.text).not.toContain('SCID');
    expect(read.text).not.toContain('Brand substitution');
    expect(read.text).not.toContain('Regulation 24');
    expect(read.text).not.toContain('Authority approval number');
    await expect(decodeCode128(pdf)).rejects.toThrow();
  });

  it('states the benefit: RPBS for a DVA patient, Private for a private prescription or one without a PBS code', () => {
    const dva = { ...patient, dva_file_number: 'NX123456', dva_card_color: 'gold' };
    expect(buildPrescriptionLegalContent({ prescription: row(), patient: dva }, KEY).benefit).toBe('RPBS');
    expect(scriptItemsOf(buildPrescriptionLegalContent({ prescription: row(), patient: dva }, KEY)).patient_medicare_or_dva).toBe('Medicare 2950141861 (IRN 1); DVA NX123456');
    expect(buildPrescriptionLegalContent({ prescription: row({ flags: JSON.stringify({ private_prescription: true }) }), patient }, KEY).benefit).toBe('Private');
    expect(buildPrescriptionLegalContent({ prescription: row({ pbs_code: null }), patient }, KEY).benefit).toBe('Private');
  });

  it('prints letters the standard fonts lack without their accents, or as "?"', async () => {
    expect(printable('Nguyễn Thị Ánh')).toBe('Nguyen Thi Ánh');
    expect(printable('王 Wei')).toBe('? Wei');
    const pdf = await renderPrescriptionPdf(buildPrescriptionLegalContent({ prescription: row(), patient: { ...patient, given_name: 'Thị', family_name: 'Nguyễn' } }, KEY));
    expect((await readPdf(pdf)).text).toContain('Patient: Thi Nguyen');
  });

  it('cites a source and the date it was read for every item, and every item is a rule', () => {
    expect(SCRIPT_CONTENT_RULES.map((rule) => rule.item).sort()).toEqual([...SCRIPT_ITEMS].sort());
    for (const rule of SCRIPT_CONTENT_RULES) {
      expect(rule.source.length, rule.item).toBeGreaterThan(10);
      expect(rule.read, rule.item).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});
