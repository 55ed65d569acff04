// Who may manage users, and that nobody locks an organization out: creating a user needs an
// owner or admin like every other user-management call; disable and enable keep the platform's
// roles (owner, support); nobody disables themselves or the last enabled owner.
import { describe, expect, it } from 'vitest';
import { LOCK_OUT_DETAILS } from '../../src/users/user-access.ts';
import { bearer, call, givenClient, requestToken, type TestClient, useTestApp } from '../given.ts';
import type { TestApp } from '../test-app.ts';
import { expectNothingSaved, givenMember, storedUser } from './users-given.ts';

let t: TestApp;
let c: TestClient;

useTestApp({ each: true }, (app, client) => {
  t = app;
  c = client;
  return {};
});

async function headersOf(roles: string[]): Promise<Record<string, string>> {
  const userId = await givenMember(t, c, roles);
  return bearer(await requestToken(t, c.g, undefined, userId), c.g);
}

const stateOf = async (userId: string) => {
  const stored = await storedUser(t, userId);
  return { enabled: stored.enabled, roles: JSON.parse(stored.roles) as string[] };
};

describe('POST users: only an owner or admin creates users', () => {
  it.each([[['provider']], [['receptionist']], [['rx_reader', 'rx_queue_manager']]])('refuses a user with roles %j (403), creating no one, not even an admin', async (roles) => {
    const headers = await headersOf(roles);
    const body = { given_name: 'Eve', family_name: 'Escalated', email: `eve-${roles[0]}@example.test`, access_roles: ['admin'] };
    const response = await expectNothingSaved(t, () => call(t, 'POST', c.usersUrl, headers, body), 403);
    expect(response.json()).toMatchObject({ success: false, statusCode: 403, code: 'FORBIDDEN' });
  });

  it('lets an admin who is not an owner create a user', async () => {
    const body = { given_name: 'Ada', family_name: 'Admin', email: 'ada-by-admin@example.test', access_roles: ['receptionist'] };
    expect((await call(t, 'POST', c.usersUrl, await headersOf(['admin']), body)).statusCode).toBe(201);
  });
});

describe('disable and enable keep the roles the platform gave', () => {
  it("keeps a second owner's owner role when an admin disables and re-enables them", async () => {
    const ownerId = await givenMember(t, c, ['owner', 'provider']);
    const admin = await headersOf(['admin']);
    expect((await call(t, 'PUT', c.userUrl(ownerId, '/disable'), admin)).statusCode).toBe(200);
    expect(await stateOf(ownerId)).toEqual({ enabled: 0, roles: ['owner', 'member'] });
    expect((await call(t, 'PUT', c.userUrl(ownerId, '/enable'), admin)).statusCode).toBe(200);
    expect(await stateOf(ownerId)).toEqual({ enabled: 1, roles: ['owner', 'member'] });
  });

  it('keeps support across disable and enable, and drops every assignable role', async () => {
    const userId = await givenMember(t, c, ['support', 'admin', 'provider']);
    await call(t, 'PUT', c.userUrl(userId, '/disable'), c.owner);
    expect(await stateOf(userId)).toEqual({ enabled: 0, roles: ['support', 'member'] });
    await call(t, 'PUT', c.userUrl(userId, '/enable'), c.owner);
    expect(await stateOf(userId)).toEqual({ enabled: 1, roles: ['support', 'member'] });
  });
});

describe('nobody locks the organization out (409)', () => {
  it('refuses to let a user disable themselves, saying so', async () => {
    const response = await expectNothingSaved(t, () => call(t, 'PUT', c.userUrl(c.g.ownerId, '/disable'), c.owner), 409);
    expect(response.json()).toMatchObject({ success: false, statusCode: 409, error: { detail: LOCK_OUT_DETAILS.self } });
    const adminId = await givenMember(t, c, ['admin']);
    const admin = bearer(await requestToken(t, c.g, undefined, adminId), c.g);
    await expectNothingSaved(t, () => call(t, 'PUT', c.userUrl(adminId, '/disable'), admin), 409);
  });

  it('refuses to disable the last enabled owner, and allows it while another owner is enabled', async () => {
    const admin = await headersOf(['admin']);
    const response = await expectNothingSaved(t, () => call(t, 'PUT', c.userUrl(c.g.ownerId, '/disable'), admin), 409);
    expect(response.json().error.detail).toBe(LOCK_OUT_DETAILS.lastOwner);

    const secondOwner = await givenMember(t, c, ['owner']);
    await t.deps.database.updateTable('users').set({ enabled: 0 }).where('id', '=', secondOwner).execute();
    await expectNothingSaved(t, () => call(t, 'PUT', c.userUrl(c.g.ownerId, '/disable'), admin), 409); // a disabled owner does not count

    await t.deps.database.updateTable('users').set({ enabled: 1 }).where('id', '=', secondOwner).execute();
    expect((await call(t, 'PUT', c.userUrl(c.g.ownerId, '/disable'), admin)).statusCode).toBe(200);
    expect(await stateOf(c.g.ownerId)).toEqual({ enabled: 0, roles: ['owner', 'member'] });
    const last = await expectNothingSaved(t, () => call(t, 'PUT', c.userUrl(secondOwner, '/disable'), admin), 409);
    expect(last.json().error.detail).toBe(LOCK_OUT_DETAILS.lastOwner);
  });

  it("counts only the organization's own owners", async () => {
    const admin = await headersOf(['admin']);
    await givenClient(t); // another organization, with its own enabled owner
    await expectNothingSaved(t, () => call(t, 'PUT', c.userUrl(c.g.ownerId, '/disable'), admin), 409);
  });
});
