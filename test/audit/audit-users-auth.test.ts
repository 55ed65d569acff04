// The audit trail of users and authentication, through HTTP: each action leaves exactly one
// entry naming who acted, for which organization and HPI-O, on which user, from which request
// and address; HI provider lookups have their own entries (HPI-I masked); credential refusals
// at /v1/token and /v1/sso name the ids they claimed, within a budget per second; and no
// identifier, demographic or secret the file used is anywhere in the table.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import { bearer, givenUser, requestToken, tokenHeaders, useTestApp } from '../given.ts';
import { ANNA, NO_STATUS_PROVIDER, providerDetails, UNREACHABLE_PROVIDER } from '../users/users-given.ts';
import { auditEntriesAfter, expectNoneOfInAuditTrail, lastAuditSeq, securityAlertsNow, theOneAuditEntry, type AuditEntryRow, whileAuditTrailUnwritable } from './audit-helpers.ts';

const ADDRESS = '192.0.2.44';
const NEW_USER = { given_name: 'Zephyrine', family_name: 'Quillfeather', email: `zephyrine.quillfeather.${process.pid}@clinic.example` };
const PROVIDER_EMAIL = `anna.provider.${process.pid}@clinic.example`;
/** Every secret the file saw: none may be in the trail. */
const secrets: string[] = [];

const { t, c } = useTestApp({});

type Method = 'GET' | 'POST' | 'PUT';

async function send(method: Method, url: string, headers: Record<string, string>, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers, remoteAddress: ADDRESS, ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** The owner's acting ids, as an entry of theirs holds them. */
function byOwner() {
  return { actor_kind: 'user', partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: c.g.ownerId, hpio: DEMO_HPIO, client_address: ADDRESS };
}

function ofResponse(response: LightMyRequestResponse) {
  return { request_id: response.json().requestId as string };
}

async function newMember(): Promise<string> {
  return (await givenUser(t, c.g.organizationId, ['provider'])).user_id;
}

describe('users', () => {
  it('user.create: one entry naming the new user and the roles given', async () => {
    const before = await lastAuditSeq(t);
    const response = await send('POST', c.usersUrl, c.owner, { ...NEW_USER, access_roles: ['admin'] });
    expect(response.statusCode).toBe(201);
    const userId = response.json().data.user_id as string;
    const entry = await theOneAuditEntry(t, before, 'user.create');
    expect(entry).toMatchObject({ ...byOwner(), ...ofResponse(response), outcome: 'success', target_user_id: userId, detail: { roles: ['admin'] } });
    expect((await auditEntriesAfter(t, before)).map((e) => e.action)).toEqual(['user.create']);
  });

  it('user.create of a provider: the HI lookup (hi.provider_verify, HPI-I masked, duration) for the user to be, then user.create', async () => {
    const before = await lastAuditSeq(t);
    const { given_name, family_name, ...details } = providerDetails(ANNA);
    const response = await send('POST', c.usersUrl, c.owner, { given_name, family_name, email: PROVIDER_EMAIL, access_roles: ['provider'], ...details });
    expect(response.statusCode).toBe(201);
    const userId = response.json().data.user_id as string;
    const verify = await theOneAuditEntry(t, before, 'hi.provider_verify');
    expect(verify).toMatchObject({ ...byOwner(), ...ofResponse(response), outcome: 'success', target_user_id: userId });
    expect(verify.detail).toEqual({ searchPath: 'hpii', hpii: `****${ANNA.hpii_number.slice(-4)}`, hiResult: 'verified', durationMs: expect.any(Number) });
    expect(await theOneAuditEntry(t, before, 'user.create')).toMatchObject({ ...ofResponse(response), target_user_id: userId });
  });

  it('user.read: one entry for the read of a user with provider details', async () => {
    const userId = await newMember();
    const before = await lastAuditSeq(t);
    const response = await send('GET', c.userUrl(userId), c.owner);
    expect(response.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, before, 'user.read')).toMatchObject({ ...byOwner(), ...ofResponse(response), outcome: 'success', target_user_id: userId });
  });

  it('user.update: the HI lookup and the update, each once, naming the user updated', async () => {
    const userId = await newMember();
    const before = await lastAuditSeq(t);
    const response = await send('PUT', c.userUrl(userId), c.owner, { provider_details: providerDetails(NO_STATUS_PROVIDER) });
    // An HPI-I the HI Service returns no status for: 422, the lookup recorded, nothing updated.
    expect(response.statusCode).toBe(422);
    expect(await theOneAuditEntry(t, before, 'hi.provider_verify')).toMatchObject({ ...byOwner(), ...ofResponse(response), target_user_id: userId, detail: { hiResult: 'no_status' } });
    expect((await auditEntriesAfter(t, before)).filter((e) => e.action === 'user.update')).toEqual([]);

    const second = await lastAuditSeq(t);
    const updated = await send('PUT', c.userUrl(userId), c.owner, { full_name: 'Zephyrine Q' });
    expect(updated.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, second, 'user.update')).toMatchObject({ ...byOwner(), ...ofResponse(updated), outcome: 'success', target_user_id: userId });
  });

  it("hi.provider_verify with outcome 'error' when the HI Service is unreachable, and no user.update", async () => {
    const userId = await newMember();
    const before = await lastAuditSeq(t);
    const response = await send('PUT', c.userUrl(userId), c.owner, { provider_details: providerDetails(UNREACHABLE_PROVIDER) });
    expect(response.statusCode).toBe(500);
    const verify = await theOneAuditEntry(t, before, 'hi.provider_verify');
    expect(verify).toMatchObject({ ...byOwner(), ...ofResponse(response), outcome: 'error', target_user_id: userId });
    expect(verify.detail).toMatchObject({ hpii: `****${UNREACHABLE_PROVIDER.hpii_number.slice(-4)}`, hiResult: 'unreachable' });
    expect((await auditEntriesAfter(t, before)).map((e) => e.action)).toEqual(['hi.provider_verify']);
  });

  it('user.roles_change: one entry with the new roles', async () => {
    const userId = await newMember();
    const before = await lastAuditSeq(t);
    const response = await send('PUT', c.userUrl(userId, '/roles'), c.owner, { access_roles: ['admin', 'rx_reader'] });
    expect(response.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, before, 'user.roles_change')).toMatchObject({ ...byOwner(), ...ofResponse(response), target_user_id: userId, detail: { roles: ['admin', 'rx_reader'] } });
  });

  it('user.disable and user.enable: one entry each; disabling oneself is refused and recorded so', async () => {
    const userId = await newMember();
    let before = await lastAuditSeq(t);
    const disabled = await send('PUT', c.userUrl(userId, '/disable'), c.owner);
    expect(disabled.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, before, 'user.disable')).toMatchObject({ ...byOwner(), ...ofResponse(disabled), outcome: 'success', target_user_id: userId });
    before = await lastAuditSeq(t);
    const enabled = await send('PUT', c.userUrl(userId, '/enable'), c.owner);
    expect(enabled.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, before, 'user.enable')).toMatchObject({ ...byOwner(), ...ofResponse(enabled), outcome: 'success', target_user_id: userId });
    before = await lastAuditSeq(t);
    const self = await send('PUT', c.userUrl(c.g.ownerId, '/disable'), c.owner);
    expect(self.statusCode).toBe(409);
    expect(await theOneAuditEntry(t, before, 'user.disable')).toMatchObject({ ...byOwner(), ...ofResponse(self), outcome: 'refused', target_user_id: c.g.ownerId, detail: { reason: 'CONFLICT: self' } });
  });

  it('a disable refused because the user is the last enabled owner is recorded so, naming the admin who tried', async () => {
    const adminId = (await givenUser(t, c.g.organizationId, ['admin'])).user_id;
    const admin = bearer(await requestToken(t, c.g, undefined, adminId), c.g);
    const before = await lastAuditSeq(t);
    const refused = await send('PUT', c.userUrl(c.g.ownerId, '/disable'), admin);
    expect(refused.statusCode).toBe(409);
    expect(await theOneAuditEntry(t, before, 'user.disable')).toMatchObject({
      ...byOwner(),
      ...ofResponse(refused),
      user_id: adminId,
      outcome: 'refused',
      target_user_id: c.g.ownerId,
      detail: { reason: 'CONFLICT: last_owner' },
    });
  });

  it('fails closed: a user read whose entry cannot be written answers 500, not the user', async () => {
    const userId = await newMember();
    await whileAuditTrailUnwritable(t, async () => {
      const response = await send('GET', c.userUrl(userId), c.owner);
      expect(response.statusCode).toBe(500);
      expect(response.body).not.toContain(userId);
    });
  });
});

/** Refusals counted from a fresh minute, so each test's buckets are its own. */
function freshMinute() {
  t.clock.advanceSeconds(60);
}

/** The security alert buckets of the current minute from ADDRESS, with the counts waiting in memory written. */
const alertsNow = () => securityAlertsNow(t, ADDRESS);

describe('authentication', () => {
  it('auth.token_issued: the user, organization and HPI-O, and how many scopes were granted', async () => {
    const before = await lastAuditSeq(t);
    const response = await send('POST', '/v1/token', tokenHeaders(c.g), { grantType: 'client_credentials', scope: ['create:patient', 'read:patient'] });
    expect(response.statusCode).toBe(200);
    secrets.push(response.json().data.accessToken);
    expect(await theOneAuditEntry(t, before, 'auth.token_issued')).toMatchObject({
      ...ofResponse(response),
      actor_kind: 'user',
      partner_id: c.g.partnerId,
      organization_id: c.g.organizationId,
      user_id: c.g.userId,
      hpio: DEMO_HPIO,
      client_address: ADDRESS,
      outcome: 'success',
      detail: { count: 2 },
    });
  });

  it.each(['/v1/token', '/v1/sso'])('a refusal at %s is a security alert, not a chain entry: the claimed ids, the reason; junk ids only hashed', async (endpoint) => {
    freshMinute();
    const before = await lastAuditSeq(t);
    const wrong = { ...tokenHeaders(c.g), 'x-partner-secret': 'wrong-partner-secret-value', 'x-organization-secret': 'wrong-organization-secret-value' };
    const body = { grantType: 'client_credentials', scope: ['create:patient'], redirect_path: '/dashboard' };
    const refused = await send('POST', endpoint, { ...wrong, 'content-type': 'application/json' }, body);
    expect(refused.statusCode).toBe(401);
    expect(await auditEntriesAfter(t, before)).toEqual([]);
    expect(await alertsNow()).toMatchObject([
      { endpoint, reason: 'credentials_invalid', count: 1, partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: c.g.userId },
    ]);

    const longId = randomBytes(3000).toString('hex');
    const malformed = await send('POST', endpoint, { ...wrong, 'x-partner-id': longId, 'x-organization-id': 'not-a-uuid', 'content-type': 'application/json' }, body);
    expect(malformed.statusCode).toBe(401);
    const junk = (await alertsNow()).find((alert) => alert.reason === 'ids_malformed')!;
    expect(junk).toMatchObject({ endpoint, count: 1, partner_id: expect.stringMatching(/^#[0-9a-f]{12}$/), organization_id: expect.stringMatching(/^#[0-9a-f]{12}$/), user_id: c.g.userId });
    expect(JSON.stringify(junk)).not.toContain(longId.slice(0, 20));
    expect(JSON.stringify(junk)).not.toContain('not-a-uuid');
    expect(await auditEntriesAfter(t, before)).toEqual([]);
  });

  it('refusals from one address in one minute are one bucket with their count, per endpoint and reason', async () => {
    freshMinute();
    const before = await lastAuditSeq(t);
    const junk = { ...tokenHeaders(c.g), 'x-organization-id': 'flood' };
    for (let i = 0; i < 27; i += 1) expect((await send('POST', '/v1/token', junk, { grantType: 'client_credentials', scope: [] })).statusCode).toBe(401);
    const next = await send('POST', '/v1/sso', { ...junk, 'content-type': 'application/json' }, {});
    expect(next.statusCode).toBe(401);
    expect((await alertsNow()).map((a) => [a.endpoint, a.reason, a.count])).toEqual([
      ['/v1/sso', 'ids_malformed', 1],
      ['/v1/token', 'ids_malformed', 27],
    ]);
    freshMinute();
    expect((await send('POST', '/v1/token', junk, { grantType: 'client_credentials', scope: [] })).statusCode).toBe(401);
    expect((await alertsNow()).map((a) => [a.endpoint, a.reason, a.count])).toEqual([['/v1/token', 'ids_malformed', 1]]);
    expect(await auditEntriesAfter(t, before)).toEqual([]);
  });

  it('auth.integration_validated: the first validation, once, in the transaction that records it; later confirmations add none', async () => {
    const validate = `/v1/organizations/${c.g.organizationId}/validate`;
    const before = await lastAuditSeq(t);
    const first = await send('GET', validate, c.prescriber);
    expect(first.statusCode).toBe(200);
    expect(await theOneAuditEntry(t, before, 'auth.integration_validated')).toMatchObject({
      ...ofResponse(first),
      actor_kind: 'user',
      partner_id: c.g.partnerId,
      organization_id: c.g.organizationId,
      user_id: c.g.userId,
      hpio: DEMO_HPIO,
      client_address: ADDRESS,
      outcome: 'success',
    });
    const stored = await t.deps.database.selectFrom('organization_partners').select('validated_at').where('organization_id', '=', c.g.organizationId).executeTakeFirstOrThrow();
    expect(stored.validated_at).not.toBeNull();
    expect((await send('GET', validate, c.prescriber)).statusCode).toBe(200);
    expect((await auditEntriesAfter(t, before)).filter((e) => e.action === 'auth.integration_validated')).toHaveLength(1);
  });
});

describe('SSO and the portal', () => {
  const bySigningInUser = () => ({ actor_kind: 'user', partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: c.g.userId, hpio: DEMO_HPIO, client_address: ADDRESS });

  it('auth.sso_minted, then auth.sso_spent and auth.portal_sign_in at the landing, then auth.portal_sign_out', async () => {
    let before = await lastAuditSeq(t);
    const minted = await send('POST', '/v1/sso', { ...tokenHeaders(c.g), 'content-type': 'application/json' }, { redirect_path: '/dashboard' });
    expect(minted.statusCode).toBe(200);
    const { sso_token: ssoToken, redirect_url: redirectUrl } = minted.json().data;
    secrets.push(ssoToken);
    expect(await theOneAuditEntry(t, before, 'auth.sso_minted')).toMatchObject({ ...bySigningInUser(), ...ofResponse(minted), outcome: 'success', detail: { partnerId: c.g.partnerId } });

    before = await lastAuditSeq(t);
    const url = new URL(redirectUrl);
    const landing = await send('GET', `${url.pathname}${url.search}`, {});
    expect(landing.statusCode).toBe(303);
    const spent = await theOneAuditEntry(t, before, 'auth.sso_spent');
    const signedIn = await theOneAuditEntry(t, before, 'auth.portal_sign_in');
    for (const entry of [spent, signedIn]) expect(entry).toMatchObject({ ...bySigningInUser(), outcome: 'success', request_id: expect.any(String) });
    expect(signedIn.request_id).toBe(spent.request_id);
    const cookie = landing.cookies.find((k) => k.name.endsWith('erx_portal_session'))!;
    secrets.push(cookie.value);

    const dashboard = await send('GET', '/dashboard', { cookie: `${cookie.name}=${cookie.value}` });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(dashboard.body)![1]!;
    before = await lastAuditSeq(t);
    const signOut = await t.app.inject({ method: 'POST', url: '/auth/sign-out', remoteAddress: ADDRESS, headers: { cookie: `${cookie.name}=${cookie.value}` }, payload: { _csrf: csrf } });
    expect(signOut.statusCode).toBe(200);
    const out = await theOneAuditEntry(t, before, 'auth.portal_sign_out');
    expect(out).toMatchObject({ ...bySigningInUser(), outcome: 'success', request_id: expect.any(String) });
    expect(out.request_id).not.toBe(signedIn.request_id);
  });
});

describe('a refused landing', () => {
  it("a live link whose user was disabled since: auth.sso_spent refused, against the link's user, by an anonymous bearer", async () => {
    const userId = await newMember();
    const minted = await send('POST', '/v1/sso', { ...tokenHeaders(c.g, userId), 'content-type': 'application/json' }, { redirect_path: '/dashboard' });
    expect(minted.statusCode).toBe(200);
    secrets.push(minted.json().data.sso_token);
    expect((await send('PUT', c.userUrl(userId, '/disable'), c.owner)).statusCode).toBe(200);
    const before = await lastAuditSeq(t);
    const url = new URL(minted.json().data.redirect_url);
    const refused = await send('GET', `${url.pathname}${url.search}`, {});
    expect(refused.statusCode).toBe(401);
    const entry = await theOneAuditEntry(t, before, 'auth.sso_spent');
    expect(entry).toMatchObject({ outcome: 'refused', actor_kind: 'anonymous', partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: null, target_user_id: userId, client_address: ADDRESS });
    expect(entry.detail).toEqual({ partnerId: c.g.partnerId, reason: 'revoked' });
    expect(refused.body).toContain(entry.request_id!);
  });
});

describe('what the trail never holds', () => {
  it('no HPI-I, name, birth date or e-mail the file used, and no secret or token', async () => {
    const tokens = [c.token, await requestToken(t, c.g, undefined, c.g.ownerId)];
    const people = [ANNA, NO_STATUS_PROVIDER, UNREACHABLE_PROVIDER].flatMap((p) => [p.hpii_number, p.given_name, p.family_name, p.date_of_birth]);
    await expectNoneOfInAuditTrail(t, [
      ...people,
      NEW_USER.given_name,
      NEW_USER.family_name,
      NEW_USER.email,
      PROVIDER_EMAIL,
      c.g.partnerSecret,
      c.g.organizationSecret,
      'wrong-partner-secret-value',
      'wrong-organization-secret-value',
      ...tokens,
      ...secrets,
      bearer(c.token, c.g).authorization!,
    ]);
    expect(secrets.length).toBeGreaterThanOrEqual(3);
  });
});
