// Two admins disable the organization's last two enabled owners at the same moment: one
// succeeds, the other is refused (409), and one enabled owner remains. On PostgreSQL each
// disable goes to its own instance of the service on one database; on SQLite one instance
// takes both.
import { describe, expect, it } from 'vitest';
import { LOCK_OUT_DETAILS } from '../../src/users/user-access.ts';
import { bearer, call, requestToken, useTwoInstances } from '../given.ts';
import { givenMember } from './users-given.ts';

const ROUNDS = 10;
const race = useTwoInstances();

/** Two fresh enabled owners, and every other owner of the organization disabled. */
async function givenExactlyTwoOwners(): Promise<[string, string]> {
  const { first, c } = race;
  const owners: [string, string] = [await givenMember(first, c, ['owner']), await givenMember(first, c, ['owner'])];
  await first.deps.database.updateTable('users').set({ enabled: 0 }).where('organization_id', '=', c.g.organizationId).where('roles', 'like', '%"owner"%').where('id', 'not in', owners).execute();
  return owners;
}

async function enabledOwners(): Promise<string[]> {
  const { first, c } = race;
  const rows = await first.deps.database
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', c.g.organizationId)
    .where('enabled', '=', 1)
    .where('roles', 'like', '%"owner"%')
    .execute();
  return rows.map((row) => row.id);
}

describe('two admins disabling the last two enabled owners at the same moment', () => {
  it(`leave one enabled owner: one disable succeeds, the other is refused (409), in each of ${ROUNDS} rounds`, async () => {
    const { first, second, c } = race;
    const adminId = await givenMember(first, c, ['admin']);
    const admin = bearer(await requestToken(first, c.g, undefined, adminId), c.g);
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await givenExactlyTwoOwners();
      const responses = await Promise.all([
        call(first, 'PUT', c.userUrl(owners[0], '/disable'), admin),
        call(second, 'PUT', c.userUrl(owners[1], '/disable'), admin),
      ]);
      const context = `round ${round}: ${responses.map((r) => r.body).join('\n')}`;
      expect(responses.map((r) => r.statusCode).sort(), context).toEqual([200, 409]);
      const refused = responses.find((r) => r.statusCode === 409)!;
      expect(refused.json().error.detail, context).toBe(LOCK_OUT_DETAILS.lastOwner);
      expect(await enabledOwners(), context).toEqual([owners[responses.indexOf(refused)]]);
    }
    expect(race.logs()).not.toContain('unhandled error');
  });
});
