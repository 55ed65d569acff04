// The prescription's fields on the portal form, through HTTP as a browser without JavaScript
// would: each has a label tied to it and its hint and error tied by aria-describedby; every
// field posted is read back through the API; each refusal is shown beside its field, which
// takes the focus. The PBS item rules on the form are in portal-pbs-rules.test.ts.
import { describe, expect, it } from 'vitest';
import { givenCatalogDrugs, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';
import { scidOfRedirect, signIn } from './portal-given.ts';

const { t, c, session, drugId } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const drugId = (await givenCatalogDrugs(t, c, [validDrug({ item_generic_name: 'Doxycycline', quantity: '7', max_repeats: '1' })]))[0]!;
  return { c, drugId: { id: drugId }, session: await signIn(t, c.g, `/embed/patients/${c.patientId}/prescriptions`) };
});

const form = `/embed/patients/${'{patient}'}/prescriptions`;
const formPath = () => form.replace('{patient}', c.patientId);
const create = (fields: Record<string, string>) =>
  session.submit(formPath(), { medicine: `drug:${drugId.id}`, quantity: '20', repeats: '1', send_to: 'patient-sms', intent: 'create', ...fields });

/** The opening tag of the element with this id. */
const tagOf = (html: string, id: string) => new RegExp(`<(?:input|select|textarea)[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? '';

const TEXT_FIELDS: Array<[string, string]> = [
  ['pbsdva_authority_number', 'Authority approval number or streamlined code'],
  ['phone_approval_authority_number', 'Telephone approval number'],
  ['reason_for_prescribing', 'Reason for prescribing'],
  ['annotations', 'Annotations'],
  ['controlled_substance_reference', 'Controlled substance reference'],
  ['schedule_number', 'Poisons schedule'],
];
const CHECKBOXES: Array<[string, string]> = [
  ['private_prescription', 'Private prescription (not PBS)'],
  ['brand_substitution_not_allowed', 'Brand substitution not allowed'],
  ['regulation_24', 'Regulation 24: supply the original and all repeats at once'],
  ['emergency_supply', 'Emergency supply'],
  ['unusual_dose_flag', 'Unusual dose (confirmed as intended)'],
  ['unusual_qty_flag', 'Unusual quantity (confirmed as intended)'],
  ['my_sl_consent', 'Patient consents to adding this to their Active Script List'],
  ['unlisted_item_repat_authority', 'Unlisted item: Repatriation (RPBS) authority'],
];

describe('the fields on the form', () => {
  it('labels every field (its accessible name) and ties each hint to its field', async () => {
    const page = await session.get(formPath());
    for (const [id, label] of [...TEXT_FIELDS, ...CHECKBOXES]) {
      expect(page.body, id).toContain(`<label for="${id}">${label}</label>`);
      expect(tagOf(page.body, id), id).toContain(`name="${id}"`);
    }
    for (const [id] of TEXT_FIELDS) {
      expect(tagOf(page.body, id)).toContain(`aria-describedby="${id}-hint"`);
      expect(page.body).toContain(`id="${id}-hint"`);
    }
    for (const [id] of CHECKBOXES) expect(tagOf(page.body, id)).toContain('type="checkbox"');
    expect(tagOf(page.body, 'quantity')).toContain('max="999"');
    expect(page.body).not.toContain('autofocus');
  });

  it('creates a prescription with every field the form offers, read back through the API', async () => {
    const ticked = Object.fromEntries(CHECKBOXES.map(([id]) => [id, 'yes']));
    const response = await create({
      ...ticked,
      quantity: '999',
      pbsdva_authority_number: 'A7654321',
      phone_approval_authority_number: '1234567',
      reason_for_prescribing: 'Bronchitis',
      annotations: 'Original pack',
      controlled_substance_reference: 'REF-1',
      doctor_instructions: 'Review',
      send_to: 'pharmacy-email:5b0e3c1a-7f2d-4e8b-9a61-0c4d2e7f1a02',
    });
    const scid = scidOfRedirect(response);
    const read = (await prescriptionsClient(t, c).read(scid)).json().data.prescription;
    expect(read).toMatchObject({
      ...Object.fromEntries(CHECKBOXES.map(([id]) => [id, true])),
      quantity: '999',
      pbsdva_authority_number: 'A7654321',
      phone_approval_authority_number: '1234567',
      reason_for_prescribing: 'Bronchitis',
      annotations: 'Original pack',
      controlled_substance_reference: 'REF-1',
      doctor_notes: 'Review',
      pharmacy_name: 'Northside Sandbox Chemist',
      send_to_pharmacy: '5b0e3c1a-7f2d-4e8b-9a61-0c4d2e7f1a02',
      prescriber_script_number: expect.stringMatching(/^\d+$/),
    });
    const shown = await session.get(`${formPath()}/${scid}`);
    expect(shown.body).toContain('<dt>Prescriber script number</dt>');
    expect(shown.body).toContain('<dt>Telephone approval number</dt><dd>1234567</dd>');
    expect(shown.body).toContain('<dt>Emergency supply</dt><dd>Yes</dd>');
  });

  it('writes the poisons schedule chosen over a PBS item\'s own', async () => {
    // S3 over the item's own (none); an S8 chosen is also signed with a fresh factor (issue 41: test/portal/rtpm-gate.test.ts).
    const scid = scidOfRedirect(await create({ medicine: 'pbs:2622B', schedule_number: 'S3', quantity: '20', repeats: '1' }));
    const read = (await prescriptionsClient(t, c).read(scid)).json().data.prescription;
    expect(read).toMatchObject({ pbs_code: '2622B', item_name: 'Amoxicillin', schedule_number: 'S3' });
  });
});

describe('refusals beside their field', () => {
  /** Posts the form, expects a 422 that stored nothing, and answers the page. */
  async function refused(fields: Record<string, string>): Promise<string> {
    const before = await snapshotDatabase(t.deps.database);
    const response = await create(fields);
    expect(response.statusCode, response.body.slice(0, 200)).toBe(422);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    return response.body;
  }

  /** The field is marked invalid, described by its error (which says `message`), and has the focus. */
  function expectRefusedBeside(html: string, field: string, message: string | RegExp) {
    const tag = tagOf(html, field);
    expect(tag).toContain('aria-invalid="true"');
    expect(tag).toMatch(new RegExp(`aria-describedby="[^"]*\\b${field}-error\\b`));
    expect(tag).toContain('autofocus');
    expect(html.match(/autofocus/g)).toHaveLength(1);
    const error = new RegExp(`<p class="error" id="${field}-error">([^<]*)</p>`).exec(html)?.[1];
    if (typeof message === 'string') expect(error).toBe(message);
    else expect(error).toMatch(message);
  }

  it('quantity 1000 (999 is taken)', async () => {
    expectRefusedBeside(await refused({ quantity: '1000' }), 'quantity', 'Quantity must be a whole number from 1 to 999');
    expect((await create({ quantity: '999' })).statusCode).toBe(303);
  });

  it('a private prescription of a PBS item: beside the medicine, which names the item', async () => {
    expectRefusedBeside(await refused({ medicine: 'pbs:2622B', private_prescription: 'yes' }), 'medicine', 'Medicine must be left out of a private prescription (private_prescription is true)');
  });

  it('a PBS code the Schedule does not hold', async () => {
    expectRefusedBeside(await refused({ medicine: 'pbs:99999Z' }), 'medicine', 'Medicine is not an item of the current PBS Schedule (99999Z)');
  });

  it('an authority number that is not letters and digits', async () => {
    expectRefusedBeside(await refused({ pbsdva_authority_number: 'A-1' }), 'pbsdva_authority_number', 'Authority approval number or streamlined code must be letters and digits only, up to 20 (no spaces or dashes)');
  });

  it('a poisons schedule chosen for a custom drug (it keeps its own); the first field in error takes the focus', async () => {
    const html = await refused({ medicine: `drug:${drugId.id}`, schedule_number: 'S8', quantity: '0' });
    expectRefusedBeside(html, 'schedule_number', 'A custom drug keeps its own schedule: leave this as it is.');
    expect(tagOf(html, 'quantity')).toContain('aria-invalid="true"');
    expect(tagOf(html, 'quantity')).not.toContain('autofocus');
  });
});
