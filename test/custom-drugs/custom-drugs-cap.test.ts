// One organization holds at most ERX_CUSTOM_DRUGS_MAX live custom drugs, its catalog and its
// users' own together: a create past it is a 422 naming the first drug that does not fit, and
// creates nothing; deleting drugs makes room again; another organization is not affected.
import { describe, expect, it } from 'vitest';
import { call, givenClient, useTestApp, type TestClient } from '../given.ts';
import type { TestApp } from '../test-app.ts';
import { givenCatalogDrugs, validDrug } from './custom-drugs-given.ts';

const { t, c } = useTestApp({ env: { ERX_CUSTOM_DRUGS_MAX: '3' }, each: true });

const liveDrugs = async (organizationId = c.g.organizationId) =>
  (await t.deps.database.selectFrom('custom_drugs').select('id').where('organization_id', '=', organizationId).where('deleted_at', 'is', null).execute()).length;

function expectCapRefusal(response: { statusCode: number; json(): any }, field: string) {
  expect(response.statusCode).toBe(422);
  expect(response.json().error).toMatchObject({
    detail: 'This organization may hold at most 3 custom drugs',
    validation: [{ field, message: expect.stringMatching(/^would take the organization past its limit of 3 custom drugs \(it holds \d+\)/), code: 'VALIDATION_ERROR' }],
  });
}

describe('the cap on custom drugs per organization', () => {
  it("counts the catalog and users' own drugs together; a single create past it is a 422 and creates nothing", async () => {
    await givenCatalogDrugs(t, c, [validDrug(), validDrug()]);
    expect((await call(t, 'POST', c.userDrugsUrl(), c.prescriber, validDrug())).statusCode).toBe(201);
    const refused = await call(t, 'POST', c.userDrugsUrl(), c.prescriber, validDrug());
    expectCapRefusal(refused, '');
    expect(refused.json().error.validation[0].message).toContain('(it holds 3)');
    expect(await liveDrugs()).toBe(3);
  });

  it('refuses a bulk create that does not fit whole, naming the first item past the limit', async () => {
    await givenCatalogDrugs(t, c, [validDrug()]);
    // Item [1] is invalid and fails alone; of the valid ones, [3] is the first with no room.
    const refused = await call(t, 'POST', c.catalogUrl, c.owner, [validDrug(), { poison_class: 'S1' }, validDrug(), validDrug()]);
    expectCapRefusal(refused, '[3]');
    expect(await liveDrugs()).toBe(1);
    expect((await call(t, 'POST', c.catalogUrl, c.owner, [validDrug(), { poison_class: 'S1' }, validDrug()])).statusCode).toBe(200);
    expect(await liveDrugs()).toBe(3);
  });

  it('makes room again when drugs are deleted, and leaves other organizations their own room', async () => {
    const [first] = await givenCatalogDrugs(t, c, [validDrug(), validDrug(), validDrug()]);
    const other = await givenClient(t);
    expect((await call(t, 'POST', other.catalogUrl, other.owner, [validDrug(), validDrug(), validDrug()])).statusCode).toBe(200);
    expectCapRefusal(await call(t, 'POST', c.catalogUrl, c.owner, [validDrug()]), '[0]');
    expect((await t.app.inject({ method: 'DELETE', url: `${c.catalogUrl}/${first}`, headers: c.owner })).statusCode).toBe(200);
    expect((await call(t, 'POST', c.catalogUrl, c.owner, [validDrug()])).statusCode).toBe(200);
    expect(await liveDrugs()).toBe(3);
    expect(await liveDrugs(other.g.organizationId)).toBe(3);
  });

  it('lets concurrent creates take only the places left: never past the limit, the refused ones changing nothing', async () => {
    await givenCatalogDrugs(t, c, [validDrug()]);
    const responses = await Promise.all(Array.from({ length: 8 }, () => call(t, 'POST', c.userDrugsUrl(), c.prescriber, validDrug())));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 201, 422, 422, 422, 422, 422, 422]);
    expect(await liveDrugs()).toBe(3);
  });

  it('keeps the count beside the organization equal to its live drugs through creates and every kind of delete', async () => {
    const held = async () => (await t.deps.database.selectFrom('organizations').select('custom_drugs_held').where('id', '=', c.g.organizationId).executeTakeFirstOrThrow()).custom_drugs_held;
    const [first] = await givenCatalogDrugs(t, c, [validDrug(), validDrug()]);
    const own = (await call(t, 'POST', c.userDrugsUrl(), c.prescriber, validDrug())).json().data.custom_drug_id as string;
    expect([await held(), await liveDrugs()]).toEqual([3, 3]);
    await t.app.inject({ method: 'DELETE', url: `${c.catalogUrl}/${first}`, headers: c.owner });
    await t.app.inject({ method: 'DELETE', url: `${c.catalogUrl}/${first}`, headers: c.owner });
    expect([await held(), await liveDrugs()]).toEqual([2, 2]);
    await t.app.inject({ method: 'DELETE', url: `${c.userDrugsUrl()}/${own}`, headers: c.prescriber });
    expect([await held(), await liveDrugs()]).toEqual([1, 1]);
    expect((await t.app.inject({ method: 'DELETE', url: `${c.catalogUrl}?confirm=true`, headers: c.owner })).statusCode).toBe(200);
    expect([await held(), await liveDrugs()]).toEqual([0, 0]);
  });
});
