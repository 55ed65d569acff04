// The organization catalog: bulk create, list, update (every status of the spec's table),
// delete one and delete all; owner or admin only; tenant-isolated; who and when recorded.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bearer, givenUser, requestToken, call, givenClient, useTestApp } from '../given.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from './custom-drugs-given.ts';

const { t, c, other } = useTestApp({}, async (t) => ({ other: await givenClient(t) }));

const UNKNOWN_ID = '0b6f6c1e-3f0a-4c8e-9d51-2f7a8e4b1c00';

async function catalogIds(client = c, query = ''): Promise<string[]> {
  const response = await call(t, 'GET', `${client.catalogUrl}${query}`, client.owner);
  expect(response.statusCode).toBe(200);
  return response.json().data.map((drug: { custom_drug_id: string }) => drug.custom_drug_id);
}

async function storedRow(id: string) {
  return t.deps.database.selectFrom('custom_drugs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('PUT /v1/organizations/{organization_id}/custom-drugs/{custom_drug_id}', () => {
  it('200: changes only the supplied fields and returns the full updated drug', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug({ custom_product_id: 'P-1', description: 'Antibiotic' })]);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, { brand_name: 'Amoxil', quantity: '30' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'Custom drug updated successfully' });
    expect(response.json().data).toEqual({
      ...validDrug({ custom_product_id: 'P-1', description: 'Antibiotic', brand_name: 'Amoxil', quantity: '30' }),
      custom_drug_id: id,
    });
    const listed = await call(t, 'GET', `${c.catalogUrl}?custom_product_id=P-1`, c.owner);
    expect(listed.json().data).toEqual([response.json().data]);
  });

  it('200: an empty optional field unsets it, and it is then omitted', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug({ description: 'Antibiotic', brand_name: 'Amoxil' })]);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, { description: '' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).not.toHaveProperty('description');
    expect(response.json().data.brand_name).toBe('Amoxil');
    expect((await storedRow(id!)).description).toBeNull();
  });

  it('200: ignores unknown fields beside updatable ones', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, { item_form: 'Tablet', colour: 'red', custom_drug_id: UNKNOWN_ID });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ custom_drug_id: id, item_form: 'Tablet' });
    expect(response.json().data).not.toHaveProperty('colour');
  });

  it.each([
    ['an empty object', {}],
    ['only unknown fields', { colour: 'red' }],
    ['only custom_drug_id', { custom_drug_id: UNKNOWN_ID }],
    ['an array', [{ item_form: 'Tablet' }]],
  ])('400: a body with no updatable fields (%s)', async (_name, body) => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    const before = await storedRow(id!);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ detail: 'Body has no updatable fields', type: expect.stringMatching(/\/invalid-request$/) });
    expect(await storedRow(id!)).toEqual(before);
  });

  it('401: without a valid token', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, { 'x-organization-secret': c.g.organizationSecret }, { item_form: 'Tablet' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Valid authentication token is required');
  });

  it("401: the token's user is not an organization owner or admin", async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.prescriber, { item_form: 'Tablet' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient permissions');
    expect((await storedRow(id!)).item_form).toBe('Capsule');
  });

  it('401: the token lacks update:custom_drug', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    const token = await requestToken(t, c.g, ['read:custom_drug', 'create:custom_drug', 'delete:custom_drug'], c.g.ownerId);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, bearer(token, c.g), { item_form: 'Tablet' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });

  it('404: no drug with this id in the catalog', async () => {
    const response = await call(t, 'PUT', `${c.catalogUrl}/${UNKNOWN_ID}`, c.owner, { item_form: 'Tablet' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toMatchObject({ detail: 'Custom drug not found', type: expect.stringMatching(/\/not-found$/) });
  });

  it("404: a user-level drug's id is not in the organization catalog", async () => {
    const id = await givenUserDrug(t, c, validDrug());
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, { item_form: 'Tablet' });
    expect(response.statusCode).toBe(404);
    expect((await storedRow(id)).item_form).toBe('Capsule');
  });

  it("404: another organization's drug id, which stays unchanged", async () => {
    const [foreign] = await givenCatalogDrugs(t, other, [validDrug()]);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${foreign}`, c.owner, { item_form: 'Tablet' });
    expect(response.statusCode).toBe(404);
    expect((await storedRow(foreign!)).item_form).toBe('Capsule');
  });

  it('404: a deleted drug', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    await call(t, 'DELETE', `${c.catalogUrl}/${id}`, c.owner);
    expect((await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, { item_form: 'Tablet' })).statusCode).toBe(404);
  });

  it('422: reports every invalid field in error.validation and changes nothing', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    const before = await storedRow(id!);
    const response = await call(t, 'PUT', `${c.catalogUrl}/${id}`, c.owner, { poison_class: 'S1', item_form: 'f'.repeat(51), quantity: 3 });
    expect(response.statusCode).toBe(422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
    expect(response.json().error.validation).toEqual(
      expect.arrayContaining([
        { field: 'poison_class', message: 'must match pattern "^S[2-9]$"', code: 'VALIDATION_ERROR' },
        { field: 'item_form', message: 'must NOT have more than 50 characters', code: 'VALIDATION_ERROR' },
        { field: 'quantity', message: 'must be string', code: 'VALIDATION_ERROR' },
      ]),
    );
    expect(await storedRow(id!)).toEqual(before);
  });

  it('500: an unexpected failure answers the error envelope without internals', async () => {
    const db = t.deps.database;
    // The table disappears for this one request (tests in a file run one at a time).
    await sql`alter table custom_drugs rename to custom_drugs_away`.execute(db);
    try {
      const response = await call(t, 'PUT', `${c.catalogUrl}/${UNKNOWN_ID}`, c.owner, { item_form: 'Tablet' });
      expect(response.statusCode).toBe(500);
      expect(response.json().error).toMatchObject({ type: expect.stringMatching(/\/internal-error$/), title: 'Internal server error' });
      expect(response.body).not.toContain('custom_drugs');
    } finally {
      await sql`alter table custom_drugs_away rename to custom_drugs`.execute(db);
    }
  });
});

describe('who may manage the organization catalog', () => {
  const routes = (id: string) =>
    [
      ['POST', '', [validDrug()]],
      ['GET', '', undefined],
      ['PUT', `/${id}`, { item_form: 'Tablet' }],
      ['DELETE', `/${id}`, undefined],
      ['DELETE', '?confirm=true', undefined],
    ] as const;

  it('answers a prescriber (role provider) with 401 Insufficient permissions on every catalog route, changing nothing', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    for (const [method, suffix, body] of routes(id!)) {
      const response = await call(t, method, `${c.catalogUrl}${suffix}`, c.prescriber, body);
      expect(response.statusCode, `${method} ${suffix}`).toBe(401);
      expect(response.json().error.detail).toBe('Insufficient permissions');
    }
    expect(await catalogIds()).toContain(id);
  });

  it.each([[['admin']], [['owner']]])('lets a user with roles %j manage it', async (roles) => {
    const user = await givenUser(t, c.g.organizationId, roles);
    const headers = bearer(await requestToken(t, c.g, undefined, user.user_id), c.g);
    const created = await call(t, 'POST', c.catalogUrl, headers, [validDrug()]);
    expect(created.statusCode).toBe(200);
    const id = created.json().data.created[0].custom_drug_id;
    expect((await call(t, 'GET', c.catalogUrl, headers)).statusCode).toBe(200);
    expect((await call(t, 'PUT', `${c.catalogUrl}/${id}`, headers, { item_form: 'Tablet' })).statusCode).toBe(200);
    expect((await call(t, 'DELETE', `${c.catalogUrl}/${id}`, headers)).statusCode).toBe(200);
  });

  it("answers another organization's token on this organization's catalog with 401", async () => {
    for (const [method, suffix, body] of routes(UNKNOWN_ID)) {
      const response = await call(t, method, `${c.catalogUrl}${suffix}`, other.owner, body);
      expect(response.statusCode, `${method} ${suffix}`).toBe(401);
    }
  });
});

describe('GET /v1/organizations/{organization_id}/custom-drugs', () => {
  it("lists only this organization's catalog: not its users' drugs, not another organization's", async () => {
    const local = await givenClient(t);
    const ids = await givenCatalogDrugs(t, local, [validDrug(), validDrug({ item_generic_name: 'Cefalexin' })]);
    await givenUserDrug(t, local, validDrug());
    await givenCatalogDrugs(t, other, [validDrug()]);
    const response = await call(t, 'GET', local.catalogUrl, local.owner);
    expect(response.json().message).toBe('Retrieved 2 custom drugs successfully');
    expect(response.json().data.map((d: { custom_drug_id: string }) => d.custom_drug_id).sort()).toEqual([...ids].sort());
  });

  it('filters by custom_product_id with an exact match, returning every drug that shares it', async () => {
    const [a, b] = await givenCatalogDrugs(t, c, [
      validDrug({ custom_product_id: 'SYNC-7' }),
      validDrug({ custom_product_id: 'SYNC-7', item_strength: '250mg' }),
      validDrug({ custom_product_id: 'SYNC-70' }),
      validDrug({ custom_product_id: 'sync-7' }),
    ]);
    expect((await catalogIds(c, '?custom_product_id=SYNC-7')).sort()).toEqual([a, b].sort());
    expect(await catalogIds(c, '?custom_product_id=NOPE')).toEqual([]);
    const [foreign] = await givenCatalogDrugs(t, other, [validDrug({ custom_product_id: 'SYNC-7' })]);
    expect(await catalogIds(c, '?custom_product_id=SYNC-7')).not.toContain(foreign);
  });
});

describe('DELETE /v1/organizations/{organization_id}/custom-drugs/{custom_drug_id}', () => {
  it('deletes the drug, and answers 200 again when it is already gone', async () => {
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await call(t, 'DELETE', `${c.catalogUrl}/${id}`, c.owner);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ message: 'Custom drug deleted successfully', data: { custom_drug_id: id } });
    }
    expect(await catalogIds()).not.toContain(id);
  });

  it("answers 200 for another organization's drug or a user-level drug, and deletes neither", async () => {
    const [foreign] = await givenCatalogDrugs(t, other, [validDrug()]);
    const personal = await givenUserDrug(t, c, validDrug());
    expect((await call(t, 'DELETE', `${c.catalogUrl}/${foreign}`, c.owner)).statusCode).toBe(200);
    expect((await call(t, 'DELETE', `${c.catalogUrl}/${personal}`, c.owner)).statusCode).toBe(200);
    expect(await catalogIds(other)).toContain(foreign);
    const userList = await call(t, 'GET', c.userDrugsUrl(), c.owner);
    expect(userList.json().data.map((d: { custom_drug_id: string }) => d.custom_drug_id)).toContain(personal);
  });
});

describe('DELETE /v1/organizations/{organization_id}/custom-drugs?confirm=true', () => {
  it.each(['', '?confirm=false', '?confirm=TRUE', '?confirm=1', '?confirm='])('answers %j with 400 and deletes nothing', async (query) => {
    await givenCatalogDrugs(t, c, [validDrug()]);
    const before = await catalogIds();
    const response = await call(t, 'DELETE', `${c.catalogUrl}${query}`, c.owner);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.detail).toMatch(/confirm=true/);
    expect(await catalogIds()).toEqual(before);
  });

  it("removes the whole organization catalog and leaves users' drugs and other organizations alone", async () => {
    const local = await givenClient(t);
    await givenCatalogDrugs(t, local, [validDrug(), validDrug(), validDrug()]);
    const personal = await givenUserDrug(t, local, validDrug());
    const [foreign] = await givenCatalogDrugs(t, other, [validDrug()]);
    const response = await call(t, 'DELETE', `${local.catalogUrl}?confirm=true`, local.owner);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({ deleted_count: 3 });
    expect(await catalogIds(local)).toEqual([]);
    const userList = await call(t, 'GET', local.userDrugsUrl(), local.owner);
    expect(userList.json().data).toEqual([expect.objectContaining({ custom_drug_id: personal, level: 'user' })]);
    expect(await catalogIds(other)).toContain(foreign);
  });
});

describe('who and when', () => {
  it('records the creating, updating and deleting user and the time of each change', async () => {
    const admin = await givenUser(t, c.g.organizationId, ['admin']);
    const adminHeaders = bearer(await requestToken(t, c.g, undefined, admin.user_id), c.g);
    const createdAt = t.clock.now().toISOString();
    const [id] = await givenCatalogDrugs(t, c, [validDrug()]);
    expect(await storedRow(id!)).toMatchObject({
      organization_id: c.g.organizationId, user_id: null,
      created_by: c.g.ownerId, created_at: createdAt, updated_by: c.g.ownerId, updated_at: createdAt, deleted_at: null,
    });

    t.clock.advanceSeconds(60);
    await call(t, 'PUT', `${c.catalogUrl}/${id}`, adminHeaders, { item_form: 'Tablet' });
    expect(await storedRow(id!)).toMatchObject({
      created_by: c.g.ownerId, created_at: createdAt, updated_by: admin.user_id, updated_at: t.clock.now().toISOString(),
    });

    t.clock.advanceSeconds(60);
    await call(t, 'DELETE', `${c.catalogUrl}/${id}`, c.owner);
    expect(await storedRow(id!)).toMatchObject({ deleted_by: c.g.ownerId, deleted_at: t.clock.now().toISOString() });
  });

  it('records who wiped the catalog and when', async () => {
    const local = await givenClient(t);
    const [id] = await givenCatalogDrugs(t, local, [validDrug()]);
    t.clock.advanceSeconds(30);
    await call(t, 'DELETE', `${local.catalogUrl}?confirm=true`, local.owner);
    expect(await storedRow(id!)).toMatchObject({ deleted_by: local.g.ownerId, deleted_at: t.clock.now().toISOString() });
  });
});
