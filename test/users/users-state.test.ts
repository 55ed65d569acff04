// The user state table (PUT .../disable) and its mirror (PUT .../enable): every row, the
// sign-in effect on tokens already issued, who may do it, and with which scopes.
import { describe, expect, it } from 'vitest';
import { bearer, requestToken, call, givenClient, useTestApp } from '../given.ts';
import { expectNothingSaved, givenMember, givenProviderRecord, readUserData, storedUser } from './users-given.ts';

const { t, c } = useTestApp({ each: true });

const UNKNOWN_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

function disable(userId: string, headers = c.owner) {
  return call(t, 'PUT', c.userUrl(userId, '/disable'), headers);
}

function enable(userId: string, headers = c.owner) {
  return call(t, 'PUT', c.userUrl(userId, '/enable'), headers);
}

async function validateWith(token: string) {
  return call(t, 'GET', `/v1/organizations/${c.g.organizationId}/validate`, bearer(token, c.g));
}

describe('PUT users/{user_id}/disable: the user state table', () => {
  it('active user: disabled, roles downgraded to member, 200 User disabled successfully', async () => {
    const userId = await givenMember(t, c, ['admin', 'provider']);
    const response = await disable(userId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'User disabled successfully', data: { user_id: userId } });
    const stored = await storedUser(t, userId);
    expect({ enabled: stored.enabled, roles: JSON.parse(stored.roles) }).toEqual({ enabled: 0, roles: ['member'] });
  });

  it("the identity provider step: the user's existing tokens stop working at once, and no new one is issued", async () => {
    const userId = await givenMember(t, c);
    const token = await requestToken(t, c.g, ['create:patient'], userId);
    expect((await validateWith(token)).statusCode).toBe(200);
    expect((await disable(userId)).statusCode).toBe(200);
    const refused = await validateWith(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.detail).toBe('Valid authentication token is required');
    await expect(requestToken(t, c.g, ['create:patient'], userId)).rejects.toThrow(/token request failed: 401/);
  });

  it("already disabled: no change, 200 'User is already disabled'", async () => {
    const userId = await givenMember(t, c);
    await disable(userId);
    const response = await expectNothingSaved(t, () => disable(userId), 200);
    expect(response.json()).toMatchObject({ message: 'User is already disabled', data: { user_id: userId } });
  });

  it('404 for an unknown user', async () => {
    const response = await expectNothingSaved(t, () => disable(UNKNOWN_ID), 404);
    expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { detail: 'User not found' } });
  });

  it("404 for another organization's user, who stays enabled", async () => {
    const other = await givenClient(t);
    await expectNothingSaved(t, () => disable(other.g.userId), 404);
    expect((await storedUser(t, other.g.userId)).enabled).toBe(1);
  });

  it('403 when the acting user is not an owner or admin', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, () => disable(userId, c.prescriber), 403);
    expect(response.json()).toMatchObject({ code: 'FORBIDDEN', error: { type: expect.stringMatching(/\/access-denied$/) } });
  });

  it('lets an admin who is not the owner disable a user', async () => {
    const adminId = await givenMember(t, c, ['admin']);
    const admin = bearer(await requestToken(t, c.g, undefined, adminId), c.g);
    expect((await disable(await givenMember(t, c), admin)).statusCode).toBe(200);
  });

  it.each([[['update:user']], [['delete:user']]])('accepts a token with only %j', async (scopes) => {
    const token = await requestToken(t, c.g, scopes, c.g.ownerId);
    expect((await disable(await givenMember(t, c), bearer(token, c.g))).statusCode).toBe(200);
  });

  it("401 'Insufficient scope' for a token with neither update:user nor delete:user", async () => {
    const token = await requestToken(t, c.g, ['read:user', 'read:users', 'create:user'], c.g.ownerId);
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, () => disable(userId, bearer(token, c.g)), 401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED', error: { detail: 'Insufficient scope' } });
  });

  it('takes away the ability to prescribe', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    expect((await readUserData(t, c, userId)).is_escript_ready.can_prescribe).toBe(true);
    await disable(userId);
    expect((await readUserData(t, c, userId)).is_escript_ready.can_prescribe).toBe(false);
  });
});

describe('PUT users/{user_id}/enable', () => {
  it('disabled user: sign-in restored with role member, 200 User enabled successfully', async () => {
    const userId = await givenMember(t, c, ['provider', 'admin']);
    await disable(userId);
    const response = await enable(userId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'User enabled successfully', data: { user_id: userId } });
    const stored = await storedUser(t, userId);
    expect({ enabled: stored.enabled, roles: JSON.parse(stored.roles) }).toEqual({ enabled: 1, roles: ['member'] });
    const token = await requestToken(t, c.g, ['create:patient'], userId);
    expect((await validateWith(token)).statusCode).toBe(200);
  });

  it('gives role member even when roles were changed while the user was disabled', async () => {
    const userId = await givenMember(t, c);
    await disable(userId);
    await call(t, 'PUT', c.userUrl(userId, '/roles'), c.owner, { access_roles: ['admin'] });
    await enable(userId);
    expect(JSON.parse((await storedUser(t, userId)).roles)).toEqual(['member']);
  });

  it("already enabled: no change, 200 'User is already enabled'", async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, () => enable(userId), 200);
    expect(response.json()).toMatchObject({ message: 'User is already enabled', data: { user_id: userId } });
  });

  it('404 for an unknown user, 403 for a user who may not manage users', async () => {
    await expectNothingSaved(t, () => enable(UNKNOWN_ID), 404);
    const userId = await givenMember(t, c);
    await disable(userId);
    await expectNothingSaved(t, () => enable(userId, c.prescriber), 403);
  });

  it('a re-enabled provider prescribes again once given the provider role back (the record was kept)', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    await disable(userId);
    await enable(userId);
    expect((await readUserData(t, c, userId)).is_escript_ready.can_prescribe).toBe(false);
    await call(t, 'PUT', c.userUrl(userId, '/roles'), c.owner, { access_roles: ['provider'] });
    expect((await readUserData(t, c, userId)).is_escript_ready.can_prescribe).toBe(true);
  });
});
