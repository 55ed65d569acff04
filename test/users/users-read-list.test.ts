// GET users/{user_id} (the vendor's shape plus is_escript_ready.can_prescribe, condition by
// condition) and GET users (every user of the organization, none of another).
import { describe, expect, it } from 'vitest';
import { bearer, requestToken, call, givenClient, useTestApp } from '../given.ts';
import { ANNA, expectNothingSaved, givenMember, givenProviderRecord, providerDetails, readUserData, storedUser } from './users-given.ts';

const { t, c } = useTestApp({ each: true });

const UNKNOWN_ID = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

describe('GET users/{user_id}', () => {
  it("returns a provider's details from the provider record, and can_prescribe", async () => {
    await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: providerDetails(ANNA, { title: 'Dr', ahpra_number: 'MED0000932846' }) });
    const response = await call(t, 'GET', c.userUrl(), c.owner);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'User details retrieved successfully' });
    const stored = await storedUser(t, c.g.userId);
    expect(response.json().data).toEqual({
      user_id: c.g.userId,
      // The sandbox made this user without a partner_user_id.
      partner_user_id: null,
      external_user_id: null,
      email: stored.email,
      full_name: 'Anna Smith',
      access_roles: ['provider'],
      details: { given_name: 'Anna', family_name: 'Smith', title: 'Dr', date_of_birth: '1970-01-01', sex: 'F' },
      provider_details: {
        hpii_number: ANNA.hpii_number,
        given_name: 'Anna',
        family_name: 'Smith',
        date_of_birth: '1970-01-01',
        sex: 'F',
        phone: null,
        title: 'Dr',
        prescriber_number: '1234567',
        provider_number: null,
        prescriber_type: 'M',
        ahpra_number: 'MED0000932846',
        qualifications: 'MBBS',
        hospital_provider_number: null,
        erx_entity_id: null,
      },
      is_escript_ready: { can_prescribe: true },
      // erx's addition (issue 39): whether the user holds a portal MFA factor.
      mfa_enrolled: false,
    });
  });

  it('gives provider_details null to a provider without a record, and leaves it out for other roles', async () => {
    const provider = await readUserData(t, c, c.g.userId);
    expect(provider.provider_details).toBeNull();
    expect(provider.details).toMatchObject({ title: null, date_of_birth: null, sex: null });
    const owner = await readUserData(t, c, c.g.ownerId);
    expect(owner).not.toHaveProperty('provider_details');
    expect(owner.access_roles).toEqual(['owner', 'admin']);
  });

  it('404 for an unknown user and for a user of another organization', async () => {
    const other = await givenClient(t);
    for (const userId of [UNKNOWN_ID, other.g.userId]) {
      const response = await call(t, 'GET', c.userUrl(userId), c.owner);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', error: { detail: 'User not found' } });
    }
  });

  it("401 'Insufficient scope' without read:user", async () => {
    const token = await requestToken(t, c.g, ['read:users'], c.g.ownerId);
    const response = await call(t, 'GET', c.userUrl(), bearer(token, c.g));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});

describe('is_escript_ready.can_prescribe is true exactly when every condition holds', () => {
  const canPrescribe = async (userId: string) => (await readUserData(t, c, userId)).is_escript_ready.can_prescribe as boolean;

  it('true for an enabled provider with an active record, its prescriber fields, in an organization with an HPI-O', async () => {
    await givenProviderRecord(t, c, c.g.userId);
    expect(await canPrescribe(c.g.userId)).toBe(true);
  });

  it('false for a disabled user', async () => {
    await givenProviderRecord(t, c, c.g.userId);
    await t.deps.database.updateTable('users').set({ enabled: 0 }).where('id', '=', c.g.userId).execute();
    expect(await canPrescribe(c.g.userId)).toBe(false);
  });

  it('false without the provider role (rx_queue_manager does not prescribe)', async () => {
    await givenProviderRecord(t, c, c.g.userId);
    await call(t, 'PUT', c.userUrl(c.g.userId, '/roles'), c.owner, { access_roles: ['rx_queue_manager'] });
    expect(await canPrescribe(c.g.userId)).toBe(false);
  });

  it('false without a provider record, and with a record that is not active', async () => {
    expect(await canPrescribe(c.g.userId)).toBe(false);
    await givenProviderRecord(t, c, c.g.userId);
    await t.deps.database.updateTable('provider_records').set({ status: 'inactive' }).where('user_id', '=', c.g.userId).execute();
    expect(await canPrescribe(c.g.userId)).toBe(false);
  });

  it('false without prescriber_number unless the type is T', async () => {
    const details = { ...providerDetails() };
    delete details.prescriber_type;
    delete details.prescriber_number;
    delete details.qualifications;
    expect((await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: details })).statusCode).toBe(200);
    expect(await canPrescribe(c.g.userId)).toBe(false);
    await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: { prescriber_type: 'T', qualifications: 'BPod' } });
    expect(await canPrescribe(c.g.userId)).toBe(true);
  });

  it('false with a type but no qualifications', async () => {
    await givenProviderRecord(t, c, c.g.userId);
    await t.deps.database.updateTable('provider_records').set({ qualifications: null }).where('user_id', '=', c.g.userId).execute();
    expect(await canPrescribe(c.g.userId)).toBe(false);
  });

  it('false in an organization without an HPI-O', async () => {
    await givenProviderRecord(t, c, c.g.userId);
    await t.deps.database.updateTable('organizations').set({ hpio: null }).where('id', '=', c.g.organizationId).execute();
    expect(await canPrescribe(c.g.userId)).toBe(false);
  });
});

describe('GET users', () => {
  it("lists every user of the organization (disabled ones too) and none of another's", async () => {
    const other = await givenClient(t);
    const extra = await givenMember(t, c, ['receptionist']);
    await call(t, 'PUT', c.userUrl(extra, '/disable'), c.owner);
    const response = await call(t, 'GET', c.usersUrl, c.owner);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, code: 'SUCCESS', message: 'Retrieved 3 users successfully' });
    const users = await t.deps.database.selectFrom('users').select(['id', 'email']).where('organization_id', '=', c.g.organizationId).execute();
    expect(response.json().data).toEqual(expect.arrayContaining(users.map((user) => ({ user_id: user.id, email: user.email }))));
    expect(response.json().data).toHaveLength(3);
    expect(response.json().data.map((user: { user_id: string }) => user.user_id)).not.toContain(other.g.userId);
    for (const user of response.json().data) expect(Object.keys(user).sort()).toEqual(['email', 'user_id']);
  });

  it('ignores limit and lastKey: no pagination', async () => {
    for (let i = 0; i < 3; i += 1) await givenMember(t, c, ['receptionist']);
    const response = await call(t, 'GET', `${c.usersUrl}?limit=1&lastKey=eyJwayI6IngifQ%3D%3D`, c.owner);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toHaveLength(5);
    expect(response.json()).not.toHaveProperty('pagination');
  });

  it('accepts a token issued for READ_USER (the alias of read:users) and refuses one without it', async () => {
    const aliased = await requestToken(t, c.g, ['READ_USER'], c.g.userId);
    expect((await call(t, 'GET', c.usersUrl, bearer(aliased, c.g))).statusCode).toBe(200);
    const without = await requestToken(t, c.g, ['read:user'], c.g.userId);
    const refused = await expectNothingSaved(t, () => call(t, 'GET', c.usersUrl, bearer(without, c.g)), 401);
    expect(refused.json().error.detail).toBe('Insufficient scope');
  });

  it('reflects a new user at once, without its partner_user_id (the spec: no partner-side identifier in the list)', async () => {
    const body = { given_name: 'New', family_name: 'Hire', email: `new.hire.${Date.now()}@clinic.example`, partner_user_id: 'CLINIC#NEW' };
    const created = await call(t, 'POST', c.usersUrl, c.owner, body);
    const listed = await call(t, 'GET', c.usersUrl, c.owner);
    expect(listed.json().data).toContainEqual({ user_id: created.json().data.user_id, email: expect.stringMatching(/^new\.hire\./) });
  });
});
