// Bulk create of the organization catalog: each item is validated and created on its own.
import { describe, expect, it } from 'vitest';
import { BULK_MAX_ITEMS } from '../../src/custom-drugs/custom-drugs-schemas.ts';
import { BULK_FAILURES_REPORTED } from '../../src/custom-drugs/custom-drugs-service.ts';
import { validDrug } from './custom-drugs-given.ts';
import { call, givenClient, useTestApp } from '../given.ts';

const { t, c } = useTestApp({});

const bulk = (payload: unknown, client = c) => call(t, 'POST', client.catalogUrl, client.owner, payload);

async function catalog(client = c): Promise<Array<Record<string, string>>> {
  return (await call(t, 'GET', client.catalogUrl, client.owner)).json().data;
}

describe('POST /v1/organizations/{organization_id}/custom-drugs', () => {
  it('creates the valid items of a mixed batch and reports each invalid one by its 1-based index', async () => {
    const local = await givenClient(t);
    const response = await bulk(
      [
        validDrug({ custom_product_id: 'A-1' }),
        validDrug({ poison_class: 'S1' }),
        validDrug({ item_generic_name: 'Cefalexin', quantity: 40 }),
        'not a drug',
        { item_generic_name: 'Half a drug' },
        validDrug({ custom_product_id: 'A-1', brand_name: 'Second with the same product id' }),
      ],
      local,
    );
    expect(response.statusCode).toBe(200);
    const envelope = response.json();
    expect(envelope).toMatchObject({ success: true, code: 'SUCCESS', message: 'Created 3 of 6 custom drugs successfully' });
    expect(envelope.data).toMatchObject({ total: 6, successCount: 3, failureCount: 3 });
    expect(envelope.data.failures).toEqual([
      { index: 2, error: 'poison_class must match pattern "^S[2-9]$"' },
      { index: 4, error: 'must be object' },
      { index: 5, error: expect.stringContaining('item_strength is required') },
    ]);
    expect(envelope.data.created).toEqual([
      { index: 1, custom_drug_id: expect.any(String), custom_product_id: 'A-1' },
      { index: 3, custom_drug_id: expect.any(String) },
      { index: 6, custom_drug_id: expect.any(String), custom_product_id: 'A-1' },
    ]);
    const stored = await catalog(local);
    expect(stored.map((drug) => drug.custom_drug_id).sort()).toEqual(envelope.data.created.map((e: { custom_drug_id: string }) => e.custom_drug_id).sort());
    const cefalexin = stored.find((drug) => drug.custom_drug_id === envelope.data.created[1].custom_drug_id);
    expect(cefalexin).toEqual({ ...validDrug({ item_generic_name: 'Cefalexin', quantity: '40' }), custom_drug_id: envelope.data.created[1].custom_drug_id });
  });

  it('answers 400 and creates nothing when every item fails, saying why in error.validation', async () => {
    const local = await givenClient(t);
    const response = await bulk([validDrug({ max_repeats: '100' }), validDrug({ item_form: '' })], local);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.detail).toBe('No custom drug was created: all 2 items failed; error.validation lists why');
    expect(response.json().error.validation).toEqual([
      { field: '[0].max_repeats', message: 'must match pattern "^(0|[1-9][0-9]?)$"', code: 'VALIDATION_ERROR' },
      { field: '[1].item_form', message: 'must NOT have fewer than 1 characters', code: 'VALIDATION_ERROR' },
    ]);
    expect(await catalog(local)).toEqual([]);
  });

  it.each([
    ['an empty array', []],
    ['an object', validDrug()],
    ['a string', 'drugs'],
    ['null', null],
    [`more than ${BULK_MAX_ITEMS} items`, Array.from({ length: BULK_MAX_ITEMS + 1 }, () => validDrug())],
  ])('answers 400 to %s and creates nothing', async (_name, payload) => {
    const local = await givenClient(t);
    const response = await call(t, 'POST', local.catalogUrl, { ...local.owner, 'content-type': 'application/json' }, JSON.stringify(payload));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.detail).toBe(`Body must be a non-empty JSON array of at most ${BULK_MAX_ITEMS} custom drugs`);
    expect(await catalog(local)).toEqual([]);
  });

  it(`accepts ${BULK_MAX_ITEMS} items, a body larger than the default body limit`, async () => {
    const local = await givenClient(t);
    const items = Array.from({ length: BULK_MAX_ITEMS }, (_, i) => validDrug({ custom_product_id: `P-${i}`, description: 'd'.repeat(280) }));
    const body = JSON.stringify(items);
    expect(body.length).toBeGreaterThan(t.deps.config.bodyLimitBytes);
    const response = await call(t, 'POST', local.catalogUrl, { ...local.owner, 'content-type': 'application/json' }, body);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ total: BULK_MAX_ITEMS, successCount: BULK_MAX_ITEMS, failureCount: 0 });
    expect(response.json().data.created[BULK_MAX_ITEMS - 1]).toMatchObject({ index: BULK_MAX_ITEMS, custom_product_id: `P-${BULK_MAX_ITEMS - 1}` });
    expect(await catalog(local)).toHaveLength(BULK_MAX_ITEMS);
  });

  it(`lists the first ${BULK_FAILURES_REPORTED} failures and counts them all`, async () => {
    const items = [validDrug(), ...Array.from({ length: 60 }, () => validDrug({ poison_class: '5' }))];
    const response = await bulk(items);
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({ total: 61, successCount: 1, failureCount: 60 });
    expect(data.failures).toHaveLength(BULK_FAILURES_REPORTED);
    expect(data.failures.map((f: { index: number }) => f.index)).toEqual(Array.from({ length: BULK_FAILURES_REPORTED }, (_, i) => i + 2));
  });

  it('ignores unknown fields of an item and never generates a custom_product_id', async () => {
    const local = await givenClient(t);
    const response = await bulk([validDrug({ colour: 'red', custom_drug_id: 'mine' })], local);
    expect(response.statusCode).toBe(200);
    const [created] = response.json().data.created;
    expect(created).toEqual({ index: 1, custom_drug_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) });
    expect(await catalog(local)).toEqual([{ ...validDrug(), custom_drug_id: created.custom_drug_id }]);
  });
});
