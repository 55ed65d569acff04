// The identity provider step of disable and enable sits behind an interface: the service calls
// it inside its transaction, so an external provider that fails leaves the user as it was.
import { describe, expect, it } from 'vitest';
import { type UsersContext } from '../../src/users/index.ts';
import { type IdentityAccount, type IdentityProvider } from '../../src/users/identity-provider.ts';
import { changeUserState } from '../../src/users/user-access.ts';
import { givenMember, storedUser } from './users-given.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';

const { t, c } = useTestApp({});

function contextWith(identityProvider: IdentityProvider): UsersContext {
  return { ...t.features.users, identityProvider };
}

describe('the identity provider of disable and enable', () => {
  it('is told which account to disable and enable, inside the change', async () => {
    const calls: Array<[string, Omit<IdentityAccount, 'db'>]> = [];
    const recording: IdentityProvider = {
      async disableUser({ db: _db, ...account }) {
        calls.push(['disable', account]);
      },
      async enableUser({ db: _db, ...account }) {
        calls.push(['enable', account]);
      },
    };
    const userId = await givenMember(t, c);
    const { email } = await storedUser(t, userId);
    await changeUserState(contextWith(recording), { organizationId: c.g.organizationId, organizationHpio: null, userId: c.g.ownerId }, userId, 'disable');
    const account = { organizationId: c.g.organizationId, userId, email };
    expect(calls).toEqual([['disable', account]]);
    // A recording provider does not touch sign-in, so the user is still enabled: enable is then a no-op.
    await changeUserState(contextWith(recording), { organizationId: c.g.organizationId, organizationHpio: null, userId: c.g.ownerId }, userId, 'enable');
    expect(calls).toEqual([['disable', account]]);
  });

  it('rolls the role downgrade back when the identity provider fails', async () => {
    const failing: IdentityProvider = {
      disableUser: async () => {
        throw new Error('identity provider down');
      },
      enableUser: async () => {
        throw new Error('identity provider down');
      },
    };
    const userId = await givenMember(t, c, ['provider', 'admin']);
    const before = await snapshotDatabase(t.deps.database);
    await expect(changeUserState(contextWith(failing), { organizationId: c.g.organizationId, organizationHpio: null, userId: c.g.ownerId }, userId, 'disable')).rejects.toThrow('identity provider down');
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    expect(JSON.parse((await storedUser(t, userId)).roles)).toEqual(['provider', 'admin']);
  });
});
