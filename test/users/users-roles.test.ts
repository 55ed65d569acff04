// PUT users/{user_id}/roles: replaces the roles; entries that are not assignable are dropped,
// none left is a 400; platform roles (owner, support) cannot be given or taken.
import { describe, expect, it } from 'vitest';
import { expectNothingSaved, givenMember, storedUser } from './users-given.ts';
import { call, givenClient, useTestApp } from '../given.ts';

const { t, c } = useTestApp({ each: true });

function putRoles(userId: string, body: unknown, headers = c.owner) {
  return call(t, 'PUT', c.userUrl(userId, '/roles'), headers, body);
}

async function storedRoles(userId: string): Promise<string[]> {
  return JSON.parse((await storedUser(t, userId)).roles);
}

describe('PUT users/{user_id}/roles', () => {
  it('replaces the roles and returns them', async () => {
    const userId = await givenMember(t, c, ['provider', 'receptionist']);
    const response = await putRoles(userId, { access_roles: ['admin', 'rx_reader'] });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      success: true,
      code: 'SUCCESS',
      message: 'User roles updated successfully',
      data: { user_id: userId, access_roles: ['admin', 'rx_reader'] },
    });
    expect(await storedRoles(userId)).toEqual(['admin', 'rx_reader']);
  });

  it('drops entries that are not assignable roles, and repeats', async () => {
    const userId = await givenMember(t, c);
    const response = await putRoles(userId, { access_roles: ['owner', 'support', 'member', 'superuser', 42, null, 'provider', 'provider', 'rx_queue_manager'] });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.access_roles).toEqual(['provider', 'rx_queue_manager']);
    expect(await storedRoles(userId)).toEqual(['provider', 'rx_queue_manager']);
  });

  it("keeps an owner's owner role: the API neither gives nor takes it", async () => {
    const response = await putRoles(c.g.ownerId, { access_roles: ['provider'] });
    expect(response.json().data.access_roles).toEqual(['owner', 'provider']);
  });

  it.each([
    ['only roles that cannot be assigned', { access_roles: ['owner', 'member', 'nobody'] }, 'access_roles must contain at least one valid role after filtering'],
    ['an empty array', { access_roles: [] }, 'access_roles must be a non-empty array of valid roles'],
    ['a string', { access_roles: 'admin' }, 'access_roles must be a non-empty array of valid roles'],
    ['no access_roles', {}, 'access_roles must be a non-empty array of valid roles'],
    ['too many entries', { access_roles: Array.from({ length: 33 }, () => 'admin') }, 'access_roles must be a non-empty array of valid roles'],
  ])('400 for %s, saving nothing', async (_case, body, detail) => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, () => putRoles(userId, body), 400);
    expect(response.json()).toMatchObject({ code: 'INVALID_USER_PARAMETERS', error: { detail, type: expect.stringMatching(/\/invalid-request$/) } });
  });

  it("404 for an unknown user and another organization's user", async () => {
    const other = await givenClient(t);
    for (const userId of ['7e6d5c4b-3a29-4187-9f6e-5d4c3b2a1908', other.g.userId]) {
      const response = await expectNothingSaved(t, () => putRoles(userId, { access_roles: ['admin'] }), 404);
      expect(response.json().code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('403 when the acting user is not an owner or admin', async () => {
    const response = await expectNothingSaved(t, () => putRoles(c.g.userId, { access_roles: ['admin'] }, c.prescriber), 403);
    expect(response.json().code).toBe('FORBIDDEN');
  });
});
