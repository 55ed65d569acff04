// Every limit of the spec's custom drug field table at its boundary, driven from the table
// constant the schemas are built from, on user-level create, bulk create and update.
import { describe, expect, it } from 'vitest';
import { CUSTOM_DRUG_FIELD_NAMES, CUSTOM_DRUG_FIELDS, type CustomDrugField } from '../../src/custom-drugs/custom-drugs-fields.ts';
import { fieldsOf, givenCatalogDrugs, validDrug } from './custom-drugs-given.ts';
import { call, useTestApp } from '../given.ts';

let drugId: string;

const { t, c } = useTestApp({}, async (t, c) => {
  drugId = (await givenCatalogDrugs(t, c, [validDrug()]))[0]!;
  return {};
});

/** Valid and invalid string values of each field whose table entry has a pattern. */
const PATTERN_SAMPLES: Partial<Record<CustomDrugField, { valid: string[]; invalid: string[] }>> = {
  quantity: { valid: ['1', '20', '999999999'], invalid: ['0', '1000000000', '-1', '1.5', '01', ' 1', '1e3', 'ten', ''] },
  max_repeats: { valid: ['0', '1', '99'], invalid: ['-1', '100', '00', '05', '1.0', 'x', ''] },
  poison_class: { valid: ['S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'S8', 'S9'], invalid: ['S1', 'S10', '5', 's5', 'S', 'SS', '4S', ''] },
};

const LENGTH_LIMITED = CUSTOM_DRUG_FIELD_NAMES.filter((name) => CUSTOM_DRUG_FIELDS[name].pattern === undefined);
const PATTERNED = CUSTOM_DRUG_FIELD_NAMES.filter((name) => CUSTOM_DRUG_FIELDS[name].pattern !== undefined);
const REQUIRED = CUSTOM_DRUG_FIELD_NAMES.filter((name) => CUSTOM_DRUG_FIELDS[name].requiredOnCreate);

/** The longest valid value and the shortest too long one, for a field without a pattern. */
function atAndOverMax(name: CustomDrugField): [string, string] {
  const max = CUSTOM_DRUG_FIELDS[name].maxLength!;
  return ['é'.repeat(max), 'é'.repeat(max + 1)];
}

const createUser = (body: unknown) => call(t, 'POST', c.userDrugsUrl(), c.owner, body);
const update = (body: unknown) => call(t, 'PUT', `${c.catalogUrl}/${drugId}`, c.owner, body);
const bulk = (items: unknown[]) => call(t, 'POST', c.catalogUrl, c.owner, items);

describe('the field table', () => {
  it('matches the spec: required fields, max lengths and the poison class pattern', () => {
    expect(REQUIRED.sort()).toEqual(
      ['item_generic_name', 'item_strength', 'item_form', 'route_of_administration', 'quantity', 'max_repeats', 'poison_class'].sort(),
    );
    const limits = Object.fromEntries(CUSTOM_DRUG_FIELD_NAMES.map((name) => [name, CUSTOM_DRUG_FIELDS[name].maxLength]));
    expect(limits).toEqual({
      item_generic_name: 280, item_trade_name: 280, brand_name: 100, item_strength: 100, item_form: 50,
      route_of_administration: 50, quantity: undefined, max_repeats: undefined, poison_class: 2,
      custom_product_id: 50, description: 280, patient_instructions: 250, doctor_instructions: 50,
    });
    expect(CUSTOM_DRUG_FIELDS.poison_class.pattern).toBe('^S[2-9]$');
  });

  it('has valid and invalid samples for every patterned field, the longest valid one at its max length', () => {
    for (const name of PATTERNED) {
      const samples = PATTERN_SAMPLES[name];
      expect(samples, name).toBeDefined();
      const longest = Math.max(...samples!.valid.map((value) => value.length));
      if (CUSTOM_DRUG_FIELDS[name].maxLength !== undefined) expect(longest, name).toBe(CUSTOM_DRUG_FIELDS[name].maxLength);
    }
  });
});

describe.each(LENGTH_LIMITED)('%s length limit', (name) => {
  const [atMax, overMax] = atAndOverMax(name);

  it('accepts the max length and rejects one more character on user-level create', async () => {
    const ok = await createUser(validDrug({ [name]: atMax }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data[name]).toBe(atMax);
    const tooLong = await createUser(validDrug({ [name]: overMax }));
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().error.validation).toEqual([
      { field: name, message: `must NOT have more than ${CUSTOM_DRUG_FIELDS[name].maxLength} characters`, code: 'VALIDATION_ERROR' },
    ]);
  });

  it('accepts the max length and rejects one more character on update', async () => {
    const ok = await update({ [name]: atMax });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data[name]).toBe(atMax);
    const tooLong = await update({ [name]: overMax });
    expect(tooLong.statusCode).toBe(422);
    expect(fieldsOf(tooLong)).toEqual([name]);
  });

  it('creates the max-length item and fails the longer one in a bulk create', async () => {
    const response = await bulk([validDrug({ [name]: atMax }), validDrug({ [name]: overMax })]);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ total: 2, successCount: 1, failureCount: 1 });
    expect(response.json().data.created.map((entry: { index: number }) => entry.index)).toEqual([1]);
    expect(response.json().data.failures).toEqual([{ index: 2, error: expect.stringContaining(name) }]);
  });
});

describe.each(PATTERNED)('%s values', (name) => {
  const samples = () => PATTERN_SAMPLES[name]!;

  it('accepts every valid value on create and update', async () => {
    for (const value of samples().valid) {
      const created = await createUser(validDrug({ [name]: value }));
      expect(created.statusCode, value).toBe(201);
      expect(created.json().data[name]).toBe(value);
      expect((await update({ [name]: value })).statusCode, value).toBe(200);
    }
  });

  it('rejects every invalid value on create, update and bulk, naming the field', async () => {
    for (const value of samples().invalid) {
      const created = await createUser(validDrug({ [name]: value }));
      expect(created.statusCode, value).toBe(422);
      expect(new Set(fieldsOf(created)), value).toEqual(new Set([name]));
      const updated = await update({ [name]: value });
      expect(updated.statusCode, value).toBe(422);
      expect(new Set(fieldsOf(updated)), value).toEqual(new Set([name]));
    }
    const response = await bulk([validDrug(), ...samples().invalid.map((value) => validDrug({ [name]: value }))]);
    expect(response.json().data).toMatchObject({ successCount: 1, failureCount: samples().invalid.length });
  });
});

describe('numbers for quantity and max_repeats', () => {
  it.each([
    ['quantity', 1, '1'],
    ['quantity', 999_999_999, '999999999'],
    ['max_repeats', 0, '0'],
    ['max_repeats', 99, '99'],
  ])('accepts %s %d on create and stores it as the string %s', async (name, value, stored) => {
    const created = await createUser(validDrug({ [name]: value }));
    expect(created.statusCode).toBe(201);
    expect(created.json().data[name]).toBe(stored);
    const listed = await call(t, 'GET', c.userDrugsUrl(), c.owner);
    const drug = listed.json().data.find((d: { custom_drug_id: string }) => d.custom_drug_id === created.json().data.custom_drug_id);
    expect(drug[name]).toBe(stored);
  });

  it.each([
    ['quantity', 0],
    ['quantity', -1],
    ['quantity', 1.5],
    ['quantity', 1_000_000_000],
    ['max_repeats', -1],
    ['max_repeats', 100],
    ['max_repeats', 2.5],
  ])('rejects %s %d on create', async (name, value) => {
    const response = await createUser(validDrug({ [name]: value }));
    expect(response.statusCode).toBe(422);
    expect(fieldsOf(response)).toEqual([name]);
  });

  it('accepts numbers in bulk items too', async () => {
    const response = await bulk([validDrug({ quantity: 30, max_repeats: 5 })]);
    expect(response.statusCode).toBe(200);
    const [created] = response.json().data.created;
    const listed = await call(t, 'GET', c.catalogUrl, c.owner);
    expect(listed.json().data.find((d: { custom_drug_id: string }) => d.custom_drug_id === created.custom_drug_id)).toMatchObject({
      quantity: '30',
      max_repeats: '5',
    });
  });

  it.each(['quantity', 'max_repeats'])('requires %s to be a string on update', async (name) => {
    const response = await update({ [name]: 5 });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([{ field: name, message: 'must be string', code: 'VALIDATION_ERROR' }]);
  });

  it.each([true, null, { n: 1 }, [1]])('rejects %j as a quantity on create', async (value) => {
    const response = await createUser(validDrug({ quantity: value }));
    expect(response.statusCode).toBe(422);
    expect(fieldsOf(response)).toEqual(['quantity']);
  });

  it('rejects a number for poison_class (a bare digit)', async () => {
    const response = await createUser(validDrug({ poison_class: 5 }));
    expect(response.statusCode).toBe(422);
    expect(fieldsOf(response)).toEqual(['poison_class']);
  });
});

describe('required on create', () => {
  it.each(REQUIRED)('rejects a create without %s with REQUIRED_FIELD', async (name) => {
    const body = validDrug();
    delete body[name];
    const response = await createUser(body);
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([{ field: name, message: `${name} is required`, code: 'REQUIRED_FIELD' }]);
  });

  it('reports every missing and invalid field together in one 422', async () => {
    const response = await createUser({ poison_class: 'S1', brand_name: 'b'.repeat(101) });
    expect(response.statusCode).toBe(422);
    expect(new Set(fieldsOf(response))).toEqual(new Set([...REQUIRED.filter((name) => name !== 'poison_class'), 'poison_class', 'brand_name']));
  });

  it.each(REQUIRED)('rejects an empty %s on create and on update', async (name) => {
    expect((await createUser(validDrug({ [name]: '' }))).statusCode).toBe(422);
    const updated = await update({ [name]: '' });
    expect(updated.statusCode).toBe(422);
    expect(fieldsOf(updated)).toEqual([name]);
  });

  it('creates a drug with only the required fields and omits every other field from the response', async () => {
    const response = await createUser(validDrug());
    expect(response.statusCode).toBe(201);
    expect(Object.keys(response.json().data).sort()).toEqual(['custom_drug_id', ...REQUIRED].sort());
  });
});
