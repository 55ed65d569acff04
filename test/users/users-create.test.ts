// POST /v1/organizations/{organization_id}/users: roles and the fields each needs, the three
// 201 codes, e-mail uniqueness across the platform, and failures that save nothing.
import { describe, expect, it } from 'vitest';
import type { HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { ASSIGNABLE_ROLES } from '../../src/auth/index.ts';
import { bearer, requestToken, call, givenClient, useTestApp } from '../given.ts';
import { ANNA, expectNothingSaved, givenProviderRecord, NO_STATUS_PROVIDER, providerDetails, readUserData, storedRecord, storedUser, UNREACHABLE_PROVIDER } from './users-given.ts';

let counter = 0;

const { t, c } = useTestApp({ each: true });

function newEmail(): string {
  return `new.user.${process.pid}.${++counter}@clinic.example`;
}

/** A create body for a provider; identity from `person`, names top-level as the vendor has them. */
function providerBody(person: Omit<HiProviderFixture, 'fault'> = ANNA, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { given_name, family_name, ...details } = providerDetails(person);
  return { given_name, family_name, email: newEmail(), access_roles: ['provider'], ...details, ...overrides };
}

function create(body: unknown, headers = c.owner) {
  return call(t, 'POST', c.usersUrl, headers, body);
}

describe('POST users: 201 USER_CREATED', () => {
  it('creates an admin from names and e-mail alone, lower-casing the e-mail', async () => {
    const email = newEmail().toUpperCase();
    const response = await create({ given_name: 'Ada', family_name: 'Admin', email, access_roles: ['admin'] });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ success: true, statusCode: 201, code: 'USER_CREATED', message: 'User created successfully' });
    const { user_id: userId, ...rest } = response.json().data;
    // Beside user_id, the vendor's older names: no partner_user_id was sent, so no external id.
    expect(rest).toEqual({ external_user_id: null, parchment_user_id: userId, url: `${t.deps.config.publicUrl}${c.userUrl(userId)}` });
    const stored = await storedUser(t, userId);
    expect(stored).toMatchObject({ email: email.toLowerCase(), organization_id: c.g.organizationId, full_name: 'Ada Admin', enabled: 1 });
    expect(JSON.parse(stored.roles)).toEqual(['admin']);
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('creates a provider verified by the HI Service, with an active record, ready to prescribe', async () => {
    const response = await create(providerBody());
    expect(response.statusCode).toBe(201);
    expect(response.json().code).toBe('USER_CREATED');
    expect(response.json().data.warning).toBeUndefined();
    const userId = response.json().data.user_id;
    expect(t.hi.providerLookups).toHaveLength(1);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active', hpii_number: ANNA.hpii_number, prescriber_type: 'M' });
    expect((await readUserData(t, c, userId)).is_escript_ready.can_prescribe).toBe(true);
  });

  it.each(ASSIGNABLE_ROLES.map((role) => [role]))('accepts the assignable role %s', async (role) => {
    const body = role === 'provider' || role === 'rx_queue_manager' ? providerBody(ANNA, { access_roles: [role] }) : { given_name: 'R', family_name: 'Ole', email: newEmail(), access_roles: [role] };
    const response = await create(body);
    expect(response.statusCode).toBe(201);
    expect(JSON.parse((await storedUser(t, response.json().data.user_id)).roles)).toEqual([role]);
  });

  it('gives the baseline role member when no role is sent', async () => {
    const response = await create({ given_name: 'No', family_name: 'Role', email: newEmail() });
    expect(JSON.parse((await storedUser(t, response.json().data.user_id)).roles)).toEqual(['member']);
  });

  it('needs no prescriber_number for a type T provider', async () => {
    const body = providerBody(ANNA, { prescriber_type: 'T' });
    delete body.prescriber_number;
    expect((await create(body)).json().code).toBe('USER_CREATED');
  });
});

describe('POST users: 201 with the user created but no provider record', () => {
  it.each([
    ['does not match', () => providerBody(ANNA, { sex: 'M' })],
    ['returns no status', () => providerBody(NO_STATUS_PROVIDER)],
  ])('USER_CREATED_PROVIDER_NOT_FOUND when the HI Service %s', async (_case, body) => {
    const response = await create(body());
    expect(response.statusCode).toBe(201);
    expect(response.json().code).toBe('USER_CREATED_PROVIDER_NOT_FOUND');
    expect(response.json().data.warning).toMatch(/no provider record was created/);
    const userId = response.json().data.user_id;
    expect(await storedRecord(t, userId)).toBeUndefined();
    expect((await readUserData(t, c, userId)).provider_details).toBeNull();
  });

  it('USER_CREATED_PROVIDER_ALREADY_EXISTS when another active provider of the organization holds the HPI-I', async () => {
    await givenProviderRecord(t, c, c.g.userId);
    t.hi.providerLookups.length = 0;
    const response = await create(providerBody());
    expect(response.statusCode).toBe(201);
    expect(response.json().code).toBe('USER_CREATED_PROVIDER_ALREADY_EXISTS');
    expect(response.json().data.warning).toMatch(/already held by another active provider/);
    expect(await storedRecord(t, response.json().data.user_id)).toBeUndefined();
    expect(t.hi.providerLookups).toEqual([]);
  });
});

describe('POST users: failures save nothing', () => {
  it('409 USER_ALREADY_EXISTS for an e-mail taken in another organization, in any case', async () => {
    const other = await givenClient(t);
    const email = newEmail();
    expect((await call(t, 'POST', other.usersUrl, other.owner, { given_name: 'A', family_name: 'B', email })).statusCode).toBe(201);
    const response = await expectNothingSaved(t, () => create({ given_name: 'C', family_name: 'D', email: ` ${email.toUpperCase()}` }), 409);
    expect(response.json()).toMatchObject({ code: 'USER_ALREADY_EXISTS', error: { detail: 'User with this email already exists' } });
  });

  it('422 REQUIRED_FIELD for each field the provider role needs', async () => {
    const response = await expectNothingSaved(t, () => create({ given_name: 'P', family_name: 'Q', email: newEmail(), access_roles: ['provider'] }), 422);
    expect(response.json().error.validation).toEqual(
      ['date_of_birth', 'sex', 'hpii_number', 'qualifications', 'prescriber_type'].map((field) => ({
        field,
        message: `${field} is required for role provider`,
        code: 'REQUIRED_FIELD',
      })),
    );
  });

  it('422 REQUIRED_FIELD for prescriber_number when the type is not T, and the fields rx_queue_manager needs', async () => {
    const provider = providerBody();
    delete provider.prescriber_number;
    const first = await expectNothingSaved(t, () => create(provider), 422);
    expect(first.json().error.validation).toEqual([{ field: 'prescriber_number', message: 'prescriber_number is required for role provider', code: 'REQUIRED_FIELD' }]);
    const queue = await expectNothingSaved(t, () => create({ given_name: 'Q', family_name: 'M', email: newEmail(), access_roles: ['rx_queue_manager'] }), 422);
    expect(queue.json().error.validation.map((issue: { field: string }) => issue.field)).toEqual(['date_of_birth', 'sex', 'hpii_number', 'qualifications']);
  });

  it.each([['owner'], ['support'], ['member'], ['superuser']])('422 for the role %s, which cannot be given through the API', async (role) => {
    const response = await expectNothingSaved(t, () => create({ given_name: 'A', family_name: 'B', email: newEmail(), access_roles: [role] }), 422);
    expect(response.json().error.validation[0]).toMatchObject({ field: 'access_roles[0]', code: 'VALIDATION_ERROR' });
  });

  it('422 for a malformed e-mail and missing names', async () => {
    const response = await expectNothingSaved(t, () => create({ email: 'not-an-email' }), 422);
    expect(response.json().error.validation).toEqual(
      expect.arrayContaining([
        { field: 'given_name', message: 'given_name is required', code: 'REQUIRED_FIELD' },
        { field: 'family_name', message: 'family_name is required', code: 'REQUIRED_FIELD' },
        { field: 'email', message: 'must be a valid e-mail address', code: 'VALIDATION_ERROR' },
      ]),
    );
  });

  it('400 INVALID_USER_PARAMETERS for an invalid HPI-I, before asking the HI Service', async () => {
    const response = await expectNothingSaved(t, () => create(providerBody(ANNA, { hpii_number: '8003619166667285' })), 400);
    expect(response.json().code).toBe('INVALID_USER_PARAMETERS');
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('400 INVALID_USER_PARAMETERS for a provider in an organization without a valid HPI-O', async () => {
    await t.deps.database.updateTable('organizations').set({ hpio: null }).where('id', '=', c.g.organizationId).execute();
    const response = await expectNothingSaved(t, () => create(providerBody()), 400);
    expect(response.json().error.detail).toMatch(/HPI-O is missing or invalid/);
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('500 INTERNAL_ERROR when the HI Service is unreachable: the user is not created, so the call can be retried', async () => {
    const response = await expectNothingSaved(t, () => create(providerBody(UNREACHABLE_PROVIDER)), 500);
    expect(response.json().code).toBe('INTERNAL_ERROR');
  });

  it("401 'Insufficient scope' without create:user", async () => {
    const token = await requestToken(t, c.g, ['read:users', 'update:user'], c.g.ownerId);
    const response = await expectNothingSaved(t, () => create(providerBody(), bearer(token, c.g)), 401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });

  it('refuses an organization_id in the body, naming it: a user is created only in the caller organization', async () => {
    const other = (await givenClient(t)).g.organizationId;
    const response = await expectNothingSaved(t, () => create({ given_name: 'Here', family_name: 'Only', email: newEmail(), organization_id: other }), 422);
    expect(response.json().error.validation).toEqual([{ field: 'organization_id', message: 'is not a known field', code: 'VALIDATION_ERROR' }]);
  });
});

describe('POST users: partner_user_id and the vendor names of the answer', () => {
  it('stores partner_user_id, answers it as external_user_id, and reads it back under both names', async () => {
    const response = await create({ given_name: 'Pat', family_name: 'Partner', email: newEmail(), access_roles: ['admin'], partner_user_id: 'CLINIC#USER_42' });
    expect(response.statusCode, response.body).toBe(201);
    const data = response.json().data;
    expect(data).toMatchObject({ external_user_id: 'CLINIC#USER_42', parchment_user_id: data.user_id });
    expect((await storedUser(t, data.user_id)).partner_user_id).toBe('CLINIC#USER_42');
    expect(await readUserData(t, c, data.user_id)).toMatchObject({ user_id: data.user_id, partner_user_id: 'CLINIC#USER_42', external_user_id: 'CLINIC#USER_42' });
  });

  it("answers a url that reads the new user (the user's API resource)", async () => {
    const created = (await create({ given_name: 'Url', family_name: 'Follower', email: newEmail(), access_roles: ['admin'] })).json().data;
    const url = new URL(created.url);
    expect(url.origin).toBe(new URL(t.deps.config.publicUrl).origin);
    const read = await call(t, 'GET', url.pathname, c.owner);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data.user_id).toBe(created.user_id);
  });

  it('answers the HI outcome codes with the same names beside user_id', async () => {
    const response = await create(providerBody(NO_STATUS_PROVIDER, { partner_user_id: 'CLINIC#NS' }));
    expect(response.json()).toMatchObject({ code: 'USER_CREATED_PROVIDER_NOT_FOUND', data: { external_user_id: 'CLINIC#NS', warning: expect.any(String) } });
    expect(response.json().data.parchment_user_id).toBe(response.json().data.user_id);
  });

  it('refuses a partner_user_id over 200 characters, saving nothing', async () => {
    const response = await expectNothingSaved(t, () => create({ given_name: 'Long', family_name: 'Id', email: newEmail(), partner_user_id: 'x'.repeat(201) }), 422);
    expect(response.json().error.validation.map((issue: { field: string }) => issue.field)).toEqual(['partner_user_id']);
  });
});

describe('POST users: unknown fields are refused, never dropped', () => {
  it.each([
    ['a misspelt field', { hpii: ANNA.hpii_number }, 'hpii'],
    ['an object create user does not take', { provider_details: providerDetails() }, 'provider_details'],
  ])('refuses %s with a 422 naming it, saving nothing', async (_case, extra, field) => {
    const response = await expectNothingSaved(t, () => create({ given_name: 'Un', family_name: 'Known', email: newEmail(), ...extra }), 422);
    expect(response.json()).toMatchObject({ statusCode: 422, code: 'VALIDATION_ERROR', error: { validation: [{ field, message: 'is not a known field', code: 'VALIDATION_ERROR' }] } });
    expect(t.hi.providerLookups).toEqual([]);
  });

  it("accepts every field of the vendor's create user body", async () => {
    const body = providerBody(ANNA, { phone: '0412345678', title: 'Dr', provider_number: '2123456A', ahpra_number: 'MED0000932846', hospital_provider_number: 'H1', erx_entity_id: 'AB123', partner_user_id: 'P#1' });
    const response = await create(body);
    expect(response.statusCode, response.body).toBe(201);
  });
});
