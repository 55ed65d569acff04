import { describe, expect, it } from 'vitest';
import type { PbsItem } from '../medicines/index.ts';
import { deliveryOfChoice, EMPTY_FORM, firstFieldInError, formErrorsOf, prescribeBodyOf, readFormValues, readPrefill } from './prescription-form.ts';

const NO_RESERVED = { reserved_1: null, reserved_2: null, reserved_3: null };

describe('readPrefill', () => {
  it('takes every parameter in range', () => {
    const query = { custom_drug_id: ' 3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c ', quantity: '1', repeats: '0', repeats_interval: '365', patient_instructions: 'Take one', doctor_instructions: 'Review' };
    expect(readPrefill(query)).toEqual({
      values: { quantity: '1', repeats: '0', repeat_interval_days: '365', patient_instructions: 'Take one', doctor_instructions: 'Review' },
      customDrugId: '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c',
      warnings: [],
    });
  });

  it.each([
    ['quantity', '0', /quantity "0" was ignored: it must be a whole number from 1 to 999/],
    ['quantity', '1000', /quantity "1000" was ignored/],
    ['quantity', 'ten', /quantity "ten" was ignored/],
    ['quantity', '2.5', /quantity "2.5" was ignored/],
    ['repeats', '-1', /repeats "-1" was ignored: it must be a whole number from 0 to 99/],
    ['repeats', '100', /repeats "100" was ignored/],
    ['repeats_interval', '0', /repeats_interval "0" was ignored: it must be a whole number from 1 to 365/],
    ['repeats_interval', '366', /repeats_interval "366" was ignored/],
  ])('ignores %s=%s with a warning', (param, value, warning) => {
    const prefill = readPrefill({ [param]: value, quantity: param === 'quantity' ? value : '7' });
    expect(prefill.warnings).toEqual([expect.stringMatching(warning)]);
    expect(prefill.values).toEqual(param === 'quantity' ? {} : { quantity: '7' });
  });

  it('truncates the instructions to 250 and 50 characters, saying so', () => {
    const prefill = readPrefill({ patient_instructions: 'p'.repeat(300), doctor_instructions: 'd'.repeat(51) });
    expect(prefill.values).toEqual({ patient_instructions: 'p'.repeat(250), doctor_instructions: 'd'.repeat(50) });
    expect(prefill.warnings).toEqual(['patient_instructions was shortened to 250 characters.', 'doctor_instructions was shortened to 50 characters.']);
  });

  it('reads the first of a repeated parameter and nothing from an empty one', () => {
    expect(readPrefill({ quantity: ['5', '6'], repeats: '', custom_drug_id: '' })).toEqual({ values: { quantity: '5' }, customDrugId: undefined, warnings: [] });
  });
});

describe('deliveryOfChoice', () => {
  it.each([
    ['patient-sms', { method: 'SMS', recipient_type: 'PATIENT' }],
    ['patient-email', { method: 'EMAIL', recipient_type: 'PATIENT' }],
    ['pharmacy-email:abc', { method: 'EMAIL', recipient_type: 'PHARMACY', pharmacy_id: 'abc' }],
    ['pharmacy-sms:abc', { method: 'SMS', recipient_type: 'PHARMACY', pharmacy_id: 'abc' }],
  ])('reads %s', (choice, delivery) => {
    expect(deliveryOfChoice(choice)).toEqual(delivery);
  });

  it.each(['', 'patient-fax', 'pharmacy-sms', 'patient-sms:abc', 'PATIENT-SMS'])('refuses %j', (choice) => {
    expect(deliveryOfChoice(choice)).toBeUndefined();
  });
});

describe('prescribeBodyOf', () => {
  const form = { ...EMPTY_FORM, quantity: '20', repeats: '', send_to: 'patient-sms' };

  const amoxicillin: PbsItem = {
    pbs_code: '2622B', drug_name: 'Amoxicillin', brand_names: ['Amoxil'], form: 'Capsule', strength: '500 mg (as trihydrate)', benefit_type: 'unrestricted',
    program_code: 'GE', rpbs_only: false, max_quantity: 20, max_repeats: 0, restriction_text: null, streamlined_codes: [], schedule_code: '3963',
  };

  it('writes a PBS item out in full with its code and leaves empty fields out', () => {
    const { body, issues } = prescribeBodyOf({ ...form, medicine: 'pbs:2622B' }, { pbsItem: amoxicillin, reserved: { ...NO_RESERVED, reserved_1: 'abc' } });
    expect(issues).toEqual([]);
    expect(body).toEqual({
      item_name: 'Amoxicillin', item_strength: '500 mg (as trihydrate)', item_form: 'Capsule', pbs_code: '2622B',
      quantity: '20', delivery: { method: 'SMS', recipient_type: 'PATIENT' }, reserved_1: 'abc', reserved_2: null, reserved_3: null,
    });
  });

  it("cuts a PBS item's words to the prescription's field limits", () => {
    const long = { ...amoxicillin, form: 'F'.repeat(80), strength: 'S'.repeat(150) };
    expect(prescribeBodyOf({ ...form, medicine: 'pbs:2622B' }, { pbsItem: long, reserved: NO_RESERVED }).body).toMatchObject({ item_form: 'F'.repeat(50), item_strength: 'S'.repeat(100) });
  });

  it('passes a custom drug or an unknown value as a custom_drug_id, and a PBS code the schedule lacks as a pbs_code, for the service to judge', () => {
    const bodyOf = (medicine: string, pbsItem?: PbsItem) => prescribeBodyOf({ ...form, medicine }, { pbsItem, reserved: NO_RESERVED }).body;
    expect(bodyOf('drug:3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c')).toMatchObject({ custom_drug_id: '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c' });
    expect(bodyOf('pbs:9999Z')).toEqual(expect.objectContaining({ pbs_code: '9999Z' }));
    expect(bodyOf('pbs:9999Z', amoxicillin)).toEqual(expect.objectContaining({ pbs_code: '9999Z' }));
    expect(bodyOf('pbs:9999Z')).not.toHaveProperty('custom_drug_id');
    expect(bodyOf('pbs:9999Z')).not.toHaveProperty('item_name');
    expect(bodyOf('formulary:amoxicillin-500-capsule')).toMatchObject({ custom_drug_id: 'formulary:amoxicillin-500-capsule' });
    expect(bodyOf('')).not.toHaveProperty('custom_drug_id');
    expect(bodyOf('')).not.toHaveProperty('item_name');
  });

  it('reports a missing destination itself (the service takes one for granted)', () => {
    expect(prescribeBodyOf({ ...form, send_to: 'nowhere' }, { reserved: NO_RESERVED }).issues).toEqual([
      { field: 'send_to', message: 'Choose where the token goes.', code: 'REQUIRED_FIELD' },
    ]);
  });

  it('reads posted values trimmed, ignoring what is not a string', () => {
    expect(readFormValues({ quantity: ' 5 ', medicine: { x: 1 }, extra: 'ignored' })).toEqual({ ...EMPTY_FORM, quantity: '5' });
  });
});

describe('formErrorsOf', () => {
  it('puts each service issue under the form field it is about, in the prescriber\'s words', () => {
    const errors = formErrorsOf([
      { field: 'item_name', message: 'item_name is required when no custom_drug_id is sent', code: 'REQUIRED_FIELD' },
      { field: 'quantity', message: 'must be a whole number from 1 to 99', code: 'VALIDATION_ERROR' },
      { field: 'delivery.method', message: 'the patient has no mobile number (phone); choose the other method or update the patient first', code: 'VALIDATION_ERROR' },
      { field: 'custom_drug_id', message: "is not a drug of the organization catalog or of the prescriber's own", code: 'VALIDATION_ERROR' },
      { field: 'search', message: 'must NOT have more than 100 characters', code: 'VALIDATION_ERROR' },
    ]);
    expect(errors).toEqual({
      fields: {
        medicine: ['Choose a medicine.', "Medicine is not a drug of the organization catalog or of the prescriber's own"],
        quantity: ['Quantity must be a whole number from 1 to 99'],
        send_to: ['The patient has no mobile number (phone); choose the other method or update the patient first'],
      },
      general: ['search: must NOT have more than 100 characters'],
    });
  });
});

describe('the details on the form', () => {
  const form = { ...EMPTY_FORM, quantity: '20', send_to: 'patient-sms' };
  const bodyOf = (values: Partial<typeof form>) => prescribeBodyOf({ ...form, ...values }, { reserved: NO_RESERVED });

  it('sends a PBS item by its code, ticked boxes as true, text that is not empty, and the schedule chosen', () => {
    const { body, issues } = bodyOf({ medicine: 'pbs:2002L', regulation_24: 'yes', my_sl_consent: '', pbsdva_authority_number: 'A123', annotations: '', schedule_number: 'S8' });
    expect(issues).toEqual([]);
    expect(body).toMatchObject({ pbs_code: '2002L', regulation_24: true, pbsdva_authority_number: 'A123', schedule_number: 'S8' });
    expect(body).not.toHaveProperty('my_sl_consent');
    expect(body).not.toHaveProperty('annotations');
    expect(body).not.toHaveProperty('item_name');
  });

  it.each([
    [{ pbsdva_authority_number: 'A 123' }, 'pbsdva_authority_number', 'must be letters and digits only, up to 20 (no spaces or dashes)'],
    [{ phone_approval_authority_number: '12-34' }, 'phone_approval_authority_number', 'must be letters and digits only, up to 20 (no spaces or dashes)'],
    [{ schedule_number: 'S5' }, 'schedule_number', 'must be one of S2, S3, S4, S8'],
    [{ medicine: 'drug:3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c', schedule_number: 'S4' }, 'schedule_number', 'A custom drug keeps its own schedule: leave this as it is.'],
  ])('refuses %j on %s', (values, field, message) => {
    const { body, issues } = bodyOf(values);
    expect(issues).toEqual([{ field, message, code: 'VALIDATION_ERROR' }]);
    expect(body).not.toHaveProperty(field);
  });

  it('puts each PBS rule under its field, and focuses the first field in error in the form\'s order', () => {
    const errors = formErrorsOf([
      { field: 'repeats', message: 'must not exceed 0, the PBS maximum repeats of 2001K, without an authority approval number', code: 'VALIDATION_ERROR' },
      { field: 'pbsdva_authority_number', message: 'is required: 2002L is an authority-required PBS item; enter its authority approval number', code: 'VALIDATION_ERROR' },
      { field: 'pbs_code', message: 'is not an item of the current PBS Schedule (9999X)', code: 'VALIDATION_ERROR' },
    ]);
    expect(errors.fields).toEqual({
      repeats: ['Repeats must not exceed 0, the PBS maximum repeats of 2001K, without an authority approval number'],
      pbsdva_authority_number: ['Authority approval number or streamlined code is required: 2002L is an authority-required PBS item; enter its authority approval number'],
      medicine: ['Medicine is not an item of the current PBS Schedule (9999X)'],
    });
    expect(firstFieldInError(errors)).toBe('medicine');
    expect(firstFieldInError({ fields: { send_to: ['x'], quantity: ['y'] }, general: [] })).toBe('quantity');
    expect(firstFieldInError({ fields: {}, general: ['z'] })).toBeUndefined();
  });
});
