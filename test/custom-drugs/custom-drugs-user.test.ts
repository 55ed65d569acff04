// A prescriber's own drugs: create, combined list (catalog plus own), update and delete,
// each limited to the path user in the caller's organization.
import { describe, expect, it } from 'vitest';
import { bearer, givenUser, requestToken, type TestClient, call, givenClient, useTestApp } from '../given.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from './custom-drugs-given.ts';

const { t, c, other } = useTestApp({}, async (t) => ({ other: await givenClient(t) }));

const UNKNOWN_ID = '7c2d9a4e-8b1f-4e3a-a6c5-0d9e8f7a6b5c';

async function storedRow(id: string) {
  return t.deps.database.selectFrom('custom_drugs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function listedIds(client: TestClient, userId = client.g.userId): Promise<string[]> {
  const response = await call(t, 'GET', client.userDrugsUrl(userId), client.prescriber);
  return response.json().data.map((drug: { custom_drug_id: string }) => drug.custom_drug_id);
}

describe('POST /v1/organizations/{organization_id}/users/{user_id}/custom-drugs', () => {
  it("201: creates a drug of the user's own with a generated custom_drug_id, fields not set left out", async () => {
    const body = validDrug({ quantity: 20, max_repeats: 0, custom_product_id: 'PMS-9', patient_instructions: 'Twice daily' });
    const response = await call(t, 'POST', c.userDrugsUrl(), c.prescriber, body);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ success: true, statusCode: 201, code: 'SUCCESS', message: 'Custom drug created successfully' });
    const drug = response.json().data;
    expect(drug).toEqual({ ...body, quantity: '20', max_repeats: '0', custom_drug_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await storedRow(drug.custom_drug_id)).toMatchObject({
      organization_id: c.g.organizationId, user_id: c.g.userId, item_trade_name: null,
      created_by: c.g.userId, updated_by: c.g.userId, created_at: t.clock.now().toISOString(),
    });
  });

  it('records the token user as the author when acting for another user of the organization', async () => {
    const response = await call(t, 'POST', c.userDrugsUrl(c.g.userId), c.owner, validDrug());
    expect(await storedRow(response.json().data.custom_drug_id)).toMatchObject({ user_id: c.g.userId, created_by: c.g.ownerId });
  });

  it('422: reports every failure together and creates nothing', async () => {
    const before = await listedIds(c);
    const response = await call(t, 'POST', c.userDrugsUrl(), c.prescriber, { item_generic_name: 'x', poison_class: 'S10', max_repeats: 100 });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual(
      expect.arrayContaining([
        { field: 'item_strength', message: 'item_strength is required', code: 'REQUIRED_FIELD' },
        { field: 'quantity', message: 'quantity is required', code: 'REQUIRED_FIELD' },
        { field: 'max_repeats', message: 'must match pattern "^(0|[1-9][0-9]?)$"', code: 'VALIDATION_ERROR' },
        { field: 'poison_class', message: 'must match pattern "^S[2-9]$"', code: 'VALIDATION_ERROR' },
      ]),
    );
    expect(await listedIds(c)).toEqual(before);
  });

  it("404: a user of another organization, or no user at all; nothing is created", async () => {
    for (const userId of [other.g.userId, UNKNOWN_ID]) {
      const response = await call(t, 'POST', c.userDrugsUrl(userId), c.owner, validDrug());
      expect(response.statusCode, userId).toBe(404);
      expect(response.json().error.detail).toBe('User not found');
    }
    const count = await t.deps.database.selectFrom('custom_drugs').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', other.g.userId).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('401: without the create:custom_drug scope', async () => {
    const token = await requestToken(t, c.g, ['read:custom_drug'], c.g.userId);
    const response = await call(t, 'POST', c.userDrugsUrl(), bearer(token, c.g), validDrug());
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});

describe('GET /v1/organizations/{organization_id}/users/{user_id}/custom-drugs', () => {
  it("lists the organization catalog and the user's own drugs, each marked with its level, and no one else's", async () => {
    const local = await givenClient(t);
    const colleague = await givenUser(t, local.g.organizationId);
    const [catalogDrug] = await givenCatalogDrugs(t, local, [validDrug({ custom_product_id: 'ORG' })]);
    const own = await givenUserDrug(t, local, validDrug({ custom_product_id: 'MINE' }));
    await givenUserDrug(t, local, validDrug(), colleague.user_id);
    await givenCatalogDrugs(t, other, [validDrug()]);
    await givenUserDrug(t, other, validDrug());

    const response = await call(t, 'GET', local.userDrugsUrl(), local.prescriber);
    expect(response.statusCode).toBe(200);
    expect(response.json().message).toBe('Retrieved 2 custom drugs successfully');
    const byId = Object.fromEntries(response.json().data.map((drug: { custom_drug_id: string }) => [drug.custom_drug_id, drug]));
    expect(byId).toEqual({
      [catalogDrug!]: { ...validDrug({ custom_product_id: 'ORG' }), custom_drug_id: catalogDrug, level: 'organization' },
      [own]: { ...validDrug({ custom_product_id: 'MINE' }), custom_drug_id: own, level: 'user' },
    });
  });

  it('404: a user outside the organization', async () => {
    const response = await call(t, 'GET', c.userDrugsUrl(other.g.userId), c.prescriber);
    expect(response.statusCode).toBe(404);
  });
});

describe('PUT /v1/organizations/{organization_id}/users/{user_id}/custom-drugs/{custom_drug_id}', () => {
  it('200: changes only the supplied fields and records who and when', async () => {
    const id = await givenUserDrug(t, c, validDrug({ description: 'Keep me' }));
    t.clock.advanceSeconds(120);
    const response = await call(t, 'PUT', `${c.userDrugsUrl()}/${id}`, c.prescriber, { item_strength: '250mg' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({ ...validDrug({ description: 'Keep me', item_strength: '250mg' }), custom_drug_id: id });
    expect(await storedRow(id)).toMatchObject({ created_by: c.g.ownerId, updated_by: c.g.userId, updated_at: t.clock.now().toISOString() });
  });

  it("404 unless the drug is that user's: an organization drug, a colleague's, another organization's", async () => {
    const colleague = await givenUser(t, c.g.organizationId);
    const [catalogDrug] = await givenCatalogDrugs(t, c, [validDrug()]);
    const colleagues = await givenUserDrug(t, c, validDrug(), colleague.user_id);
    const foreign = await givenUserDrug(t, other, validDrug());
    for (const id of [catalogDrug!, colleagues, foreign, UNKNOWN_ID]) {
      const response = await call(t, 'PUT', `${c.userDrugsUrl()}/${id}`, c.prescriber, { item_form: 'Tablet' });
      expect(response.statusCode, id).toBe(404);
      expect(response.json().error.detail).toBe('Custom drug not found');
    }
    for (const id of [catalogDrug!, colleagues, foreign]) expect((await storedRow(id)).item_form).toBe('Capsule');
  });

  it('404: a path user outside the organization', async () => {
    const foreign = await givenUserDrug(t, other, validDrug());
    const response = await call(t, 'PUT', `${c.userDrugsUrl(other.g.userId)}/${foreign}`, c.owner, { item_form: 'Tablet' });
    expect(response.statusCode).toBe(404);
    expect((await storedRow(foreign)).item_form).toBe('Capsule');
  });

  it('400 with no updatable field, 422 with an invalid one', async () => {
    const id = await givenUserDrug(t, c, validDrug());
    expect((await call(t, 'PUT', `${c.userDrugsUrl()}/${id}`, c.prescriber, { level: 'user' })).statusCode).toBe(400);
    const invalid = await call(t, 'PUT', `${c.userDrugsUrl()}/${id}`, c.prescriber, { poison_class: 'S1' });
    expect(invalid.statusCode).toBe(422);
  });
});

describe('DELETE /v1/organizations/{organization_id}/users/{user_id}/custom-drugs/{custom_drug_id}', () => {
  it('deletes the drug, and answers 200 again when it is already gone', async () => {
    const id = await givenUserDrug(t, c, validDrug());
    t.clock.advanceSeconds(5);
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await call(t, 'DELETE', `${c.userDrugsUrl()}/${id}`, c.prescriber);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ message: 'Custom drug deleted successfully', data: { custom_drug_id: id } });
    }
    expect(await listedIds(c)).not.toContain(id);
    expect(await storedRow(id)).toMatchObject({ deleted_by: c.g.userId, deleted_at: t.clock.now().toISOString() });
  });

  it("leaves an organization drug and a colleague's drug alone", async () => {
    const colleague = await givenUser(t, c.g.organizationId);
    const [catalogDrug] = await givenCatalogDrugs(t, c, [validDrug()]);
    const colleagues = await givenUserDrug(t, c, validDrug(), colleague.user_id);
    for (const id of [catalogDrug!, colleagues]) {
      expect((await call(t, 'DELETE', `${c.userDrugsUrl()}/${id}`, c.prescriber)).statusCode).toBe(200);
      expect((await storedRow(id)).deleted_at).toBeNull();
    }
  });

  it('404: a path user outside the organization', async () => {
    const foreign = await givenUserDrug(t, other, validDrug());
    const response = await call(t, 'DELETE', `${c.userDrugsUrl(other.g.userId)}/${foreign}`, c.owner);
    expect(response.statusCode).toBe(404);
    expect((await storedRow(foreign)).deleted_at).toBeNull();
  });
});

describe("another organization's token", () => {
  it('is answered 401 on every user-level route', async () => {
    const id = await givenUserDrug(t, c, validDrug());
    const routes = [
      ['POST', '', validDrug()],
      ['GET', '', undefined],
      ['PUT', `/${id}`, { item_form: 'Tablet' }],
      ['DELETE', `/${id}`, undefined],
    ] as const;
    for (const [method, suffix, body] of routes) {
      const response = await call(t, method, `${c.userDrugsUrl()}${suffix}`, other.owner, body);
      expect(response.statusCode, `${method} ${suffix}`).toBe(401);
    }
    expect((await storedRow(id)).deleted_at).toBeNull();
  });
});
