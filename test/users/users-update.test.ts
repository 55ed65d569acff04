// PUT /v1/organizations/{organization_id}/users/{user_id}: the 200, 400, 401, 404 and 409 rows
// of the spec's status table (422, 429, 500 are in users-update-failures.test.ts), with the
// top-level code of each, and "nothing is saved" proved by reading the whole stored state
// before and after every failure.
import { describe, expect, it } from 'vitest';
import { bearer, requestToken, call, givenClient, useTestApp } from '../given.ts';
import { ANNA, expectNothingSaved, givenMember, givenProviderRecord, providerDetails, readUserData, storedRecord, storedUser } from './users-given.ts';

const { t, c } = useTestApp({ each: true });

const UNKNOWN_ID = '5d0b7c9e-2f4a-4e61-8a3b-9c1d2e3f4a5b';

function put(userId: string, body: unknown, headers = c.owner) {
  return () => call(t, 'PUT', c.userUrl(userId), headers, body);
}

describe('PUT users/{user_id}: 200 SUCCESS', () => {
  it('creates the provider record after the HI Service verifies all five identity fields', async () => {
    const userId = await givenMember(t, c);
    const response = await call(t, 'PUT', c.userUrl(userId), c.owner, { provider_details: providerDetails() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      success: true,
      statusCode: 200,
      code: 'SUCCESS',
      message: 'User updated successfully',
      data: { user_id: userId },
    });
    expect(Object.keys(response.json().data)).toEqual(['user_id']);
    expect(t.hi.providerLookups).toEqual([
      { hpii_number: ANNA.hpii_number, given_name: 'Anna', family_name: 'Smith', date_of_birth: '1970-01-01', sex: 'F' },
    ]);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active', hpii_number: ANNA.hpii_number, prescriber_number: '1234567' });
    expect((await readUserData(t, c, userId)).is_escript_ready).toEqual({ can_prescribe: true });
  });

  it('changes only full_name when only full_name is sent, without asking the HI Service', async () => {
    const userId = await givenMember(t, c);
    const response = await call(t, 'PUT', c.userUrl(userId), c.owner, { full_name: 'Dr Test Person' });
    expect(response.statusCode).toBe(200);
    expect((await storedUser(t, userId)).full_name).toBe('Dr Test Person');
    expect(await storedRecord(t, userId)).toBeUndefined();
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('ignores access_roles and email', async () => {
    const userId = await givenMember(t, c);
    const before = await storedUser(t, userId);
    const response = await call(t, 'PUT', c.userUrl(userId), c.owner, { access_roles: ['admin'], email: 'other@example.test', full_name: 'Renamed' });
    expect(response.statusCode).toBe(200);
    const after = await storedUser(t, userId);
    expect({ roles: after.roles, email: after.email }).toEqual({ roles: before.roles, email: before.email });
    expect(after.full_name).toBe('Renamed');
  });

  it('answers 200 and changes nothing for an empty body', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, {}), 200);
    expect(response.json().code).toBe('SUCCESS');
  });

  it("takes the vendor collection's prescriber_details as provider_details", async () => {
    const userId = await givenMember(t, c);
    const response = await call(t, 'PUT', c.userUrl(userId), c.owner, { full_name: 'Dr Anna Smith', prescriber_details: providerDetails() });
    expect(response.statusCode, response.body).toBe(200);
    expect(t.hi.providerLookups).toHaveLength(1);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active', hpii_number: ANNA.hpii_number, prescriber_number: '1234567' });
    expect((await readUserData(t, c, userId)).is_escript_ready).toEqual({ can_prescribe: true });
  });

  it('accepts an update of their own details from a user who is not an owner or admin', async () => {
    const response = await call(t, 'PUT', c.userUrl(c.g.userId), c.prescriber, { full_name: 'By themselves' });
    expect(response.statusCode).toBe(200);
    expect((await storedUser(t, c.g.userId)).full_name).toBe('By themselves');
  });
});

describe('PUT users/{user_id}: 403 FORBIDDEN', () => {
  it("refuses a colleague's update of another user's details unless they are an owner or admin, saving nothing", async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { full_name: 'By a colleague' }, c.prescriber), 403);
    expect(response.json()).toMatchObject({ success: false, statusCode: 403, error: { detail: 'Insufficient permissions' } });
    expect((await call(t, 'PUT', c.userUrl(userId), c.owner, { full_name: 'By the owner' })).statusCode).toBe(200);
  });
});

describe('PUT users/{user_id}: 400 INVALID_USER_PARAMETERS', () => {
  it.each([
    ['a wrong check digit', '8003619166667285'],
    ['an IHI instead of an HPI-I', '8003601240022579'],
    ['an HPI-O instead of an HPI-I', '8003624166667003'],
    ['15 digits', '800361916666728'],
    ['letters', '800361916666728X'],
  ])('rejects an HPI-I with %s, saving nothing and asking no one', async (_case, hpii) => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(ANNA, { hpii_number: hpii }) }), 400);
    expect(response.json()).toMatchObject({ success: false, statusCode: 400, code: 'INVALID_USER_PARAMETERS' });
    expect(response.json().error.detail).toMatch(/provider_details\.hpii_number is not a valid HPI-I/);
    expect(t.hi.providerLookups).toEqual([]);
  });

  it.each([
    ['an invalid HPI-O', '8003624166667004'],
    ['no HPI-O', null],
  ])('rejects a lookup for an organization with %s, saving nothing', async (_case, hpio) => {
    const local = await givenClient(t);
    await t.deps.database.updateTable('organizations').set({ hpio }).where('id', '=', local.g.organizationId).execute();
    const response = await expectNothingSaved(t, () => call(t, 'PUT', local.userUrl(), local.owner, { provider_details: providerDetails() }), 400);
    expect(response.json().code).toBe('INVALID_USER_PARAMETERS');
    expect(response.json().error.detail).toMatch(/HPI-O is missing or invalid/);
    expect(t.hi.providerLookups).toEqual([]);
  });
});

describe('PUT users/{user_id}: 401 UNAUTHORIZED', () => {
  it.each([
    ['without a token', () => ({ 'x-organization-secret': c.g.organizationSecret }), 'Valid authentication token is required'],
    ['with an invalid token', () => ({ ...c.owner, authorization: 'Bearer invalid.token.value' }), 'Valid authentication token is required'],
  ])('answers %s, saving nothing', async (_case, headers, detail) => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { full_name: 'X' }, headers()), 401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED', error: { detail } });
  });

  it("answers 'Insufficient scope' to a token without update:user, saving nothing", async () => {
    const userId = await givenMember(t, c);
    const token = await requestToken(t, c.g, ['read:user', 'read:users', 'create:user', 'delete:user'], c.g.ownerId);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails() }, bearer(token, c.g)), 401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED', error: { detail: 'Insufficient scope' } });
    expect(t.hi.providerLookups).toEqual([]);
  });
});

describe('PUT users/{user_id}: 404 RESOURCE_NOT_FOUND', () => {
  it('answers an unknown user id', async () => {
    const response = await expectNothingSaved(t, put(UNKNOWN_ID, { provider_details: providerDetails() }), 404);
    expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { detail: 'User not found' } });
    expect(t.hi.providerLookups).toEqual([]);
  });

  it("answers another organization's user id and leaves that user unchanged", async () => {
    const other = await givenClient(t);
    const response = await expectNothingSaved(t, put(other.g.userId, { full_name: 'Hijacked', provider_details: providerDetails() }), 404);
    expect(response.json().code).toBe('RESOURCE_NOT_FOUND');
    expect((await storedUser(t, other.g.userId)).full_name).not.toBe('Hijacked');
  });
});

describe('PUT users/{user_id}: 409 USER_ALREADY_EXISTS', () => {
  it('answers when another active provider of the organization holds the HPI-I, saving nothing', async () => {
    const holder = await givenMember(t, c);
    await givenProviderRecord(t, c, holder);
    const userId = await givenMember(t, c);
    t.hi.providerLookups.length = 0;
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails() }), 409);
    expect(response.json()).toMatchObject({ code: 'USER_ALREADY_EXISTS', error: { type: expect.stringMatching(/\/resource-conflict$/) } });
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('lets a provider of another organization hold the same HPI-I', async () => {
    const local = await givenClient(t);
    const other = await givenClient(t);
    await givenProviderRecord(t, other, other.g.userId);
    const response = await call(t, 'PUT', local.userUrl(), local.owner, { provider_details: providerDetails() });
    expect(response.statusCode).toBe(200);
  });
});

describe('PUT users/{user_id}: a misspelt field is a 422 naming it, never a 200 that changes nothing', () => {
  it.each([
    ['a misspelt provider object', { provider_detail: providerDetails() }, 'provider_detail'],
    ['the alias in camel case', { prescriberDetails: providerDetails() }, 'prescriberDetails'],
    ['an unknown top-level field', { full_name: 'Renamed', colour: 'red' }, 'colour'],
    ['an unknown field inside provider_details', { provider_details: { ...providerDetails(), hpii: ANNA.hpii_number } }, 'provider_details.hpii'],
    ['an unknown field inside prescriber_details', { prescriber_details: { ...providerDetails(), prescriberType: 'M' } }, 'prescriber_details.prescriberType'],
  ])('refuses %s, saving nothing', async (_case, body, field) => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, body), 422);
    expect(response.json()).toMatchObject({ statusCode: 422, code: 'VALIDATION_ERROR', error: { validation: [{ field, message: 'is not a known field', code: 'VALIDATION_ERROR' }] } });
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('refuses provider_details and prescriber_details together, saving nothing', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(), prescriber_details: providerDetails() }), 422);
    expect(response.json().error.validation).toEqual([
      { field: 'prescriber_details', message: 'is another name for provider_details: send one of the two, not both', code: 'VALIDATION_ERROR' },
    ]);
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('names a failure inside prescriber_details under the name it was sent with', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { prescriber_details: providerDetails(ANNA, { date_of_birth: '1970-02-30' }) }), 422);
    expect(response.json().error.validation).toEqual([{ field: 'prescriber_details.date_of_birth', message: 'must be a calendar date (YYYY-MM-DD)', code: 'VALIDATION_ERROR' }]);
    const incomplete = await expectNothingSaved(t, put(userId, { prescriber_details: { given_name: 'Anna' } }), 422);
    expect(incomplete.json().error.validation.map((issue: { field: string }) => issue.field)).toContain('prescriber_details.hpii_number');
  });
});
