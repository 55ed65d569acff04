// What rotating a secret, disabling a partner for an organization, revoking portal sessions and
// signing in again do to the credentials already out there, seen through HTTP. The operations
// are the service functions the `erx` commands call (test/cli/credentials-cli.test.ts runs the
// commands themselves); the clock is moved, never waited on.
import { describe, expect, it } from 'vitest';
import {
  disablePartnerForOrganization,
  enablePartnerForOrganization,
  revokePortalSessions,
  rotateOrganizationSecret,
  rotatePartnerSecret,
} from '../../src/onboarding/index.ts';
import { bearer, givenIntegration, givenPartner, givenUser, requestToken, tokenHeaders, useTestApp, type GivenIntegration, type TestClient } from '../given.ts';
import { mintSso, mintSsoUrl, pathOf, portalClient, sessionCookieOf, signIn } from '../portal/portal-given.ts';
import type { TestApp } from '../test-app.ts';

// A fresh organization per test: tests move the clock by hours and rotate its secrets.
const { t, c } = useTestApp({ each: true });

const HOUR = 3600;
const onboarding = () => t.features.onboarding;

function tokenCall(g: GivenIntegration) {
  return t.app.inject({ method: 'POST', url: '/v1/token', headers: tokenHeaders(g), payload: { grantType: 'client_credentials', scope: ['create:patient'] } });
}
async function tokenStatus(g: GivenIntegration): Promise<number> {
  return (await tokenCall(g)).statusCode;
}
async function validateStatus(token: string, g: GivenIntegration): Promise<number> {
  return (await t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) })).statusCode;
}
async function ssoStatus(g: GivenIntegration): Promise<number> {
  return (await mintSso(t, g)).statusCode;
}
async function dashboardStatus(cookie: string, app = t): Promise<number> {
  return (await portalClient(app, cookie).get('/dashboard')).statusCode;
}
/** Another organization that enabled the same partner, with its own prescriber. */
function givenSecondOrganization(g: GivenIntegration): Promise<GivenIntegration> {
  return givenIntegration(t, { partner: { partner_id: g.partnerId, partner_secret: g.partnerSecret } });
}

describe('erx partner rotate-secret', () => {
  it('accepts the old partner secret at /v1/token and /v1/sso for the overlap, then 401; the new one at once', async () => {
    const old = c.g;
    const rotated = await rotatePartnerSecret(onboarding(), old.partnerId, 24);
    const renewed = { ...old, partnerSecret: rotated.partner_secret };
    expect(rotated.previous_secret_valid_until).toBe(new Date(t.clock.now().getTime() + 24 * HOUR * 1000).toISOString());
    expect(await tokenStatus(renewed)).toBe(200);
    expect(await tokenStatus(old)).toBe(200);
    t.clock.advanceSeconds(24 * HOUR - 1);
    expect(await tokenStatus(old)).toBe(200);
    expect(await ssoStatus(old)).toBe(200);
    t.clock.advanceSeconds(1);
    expect(await tokenStatus(old)).toBe(401);
    expect(await ssoStatus(old)).toBe(401);
    expect(await tokenStatus(renewed)).toBe(200);
    expect(await ssoStatus(renewed)).toBe(200);
  });

  it('with an overlap of 0 refuses the old secret at once', async () => {
    const rotated = await rotatePartnerSecret(onboarding(), c.g.partnerId, 0);
    expect(rotated.previous_secret_valid_until).toBeNull();
    expect(await tokenStatus(c.g)).toBe(401);
    expect(await ssoStatus(c.g)).toBe(401);
    expect(await tokenStatus({ ...c.g, partnerSecret: rotated.partner_secret })).toBe(200);
  });

  it('keeps only the secret the last rotation replaced: a second rotation ends the first secret at once', async () => {
    const second = await rotatePartnerSecret(onboarding(), c.g.partnerId, 24);
    const third = await rotatePartnerSecret(onboarding(), c.g.partnerId, 24);
    expect(await tokenStatus(c.g)).toBe(401);
    expect(await tokenStatus({ ...c.g, partnerSecret: second.partner_secret })).toBe(200);
    expect(await tokenStatus({ ...c.g, partnerSecret: third.partner_secret })).toBe(200);
  });

  it('refuses an unknown partner and a bad overlap, changing nothing', async () => {
    await expect(rotatePartnerSecret(onboarding(), 'no-such-partner', 24)).rejects.toThrow('partner no-such-partner not found');
    await expect(rotatePartnerSecret(onboarding(), c.g.partnerId, 721)).rejects.toThrow(/whole number of hours from 0 to 720/);
    await expect(rotatePartnerSecret(onboarding(), c.g.partnerId, 1.5)).rejects.toThrow(/whole number of hours/);
    await expect(rotatePartnerSecret(onboarding(), c.g.partnerId, -1)).rejects.toThrow(/whole number of hours/);
    expect(await tokenStatus(c.g)).toBe(200);
  });
});

describe('erx org rotate-secret', () => {
  it('accepts the old secret on bearer routes and /v1/token for the overlap, then 401 even where it was accepted a moment before', async () => {
    const old = c.g;
    // Accepted (and so remembered by the per-request check) before the rotation.
    expect(await validateStatus(c.token, old)).toBe(200);
    const rotated = await rotateOrganizationSecret(onboarding(), old.organizationId.toUpperCase(), 1);
    expect(rotated.organization_id).toBe(old.organizationId);
    const renewed = { ...old, organizationSecret: rotated.organization_secret };
    expect(await validateStatus(c.token, renewed)).toBe(200);
    expect(await validateStatus(c.token, old)).toBe(200);
    expect(await tokenStatus(old)).toBe(200);
    t.clock.advanceSeconds(HOUR - 1);
    const fresh = await requestToken(t, renewed);
    expect(await validateStatus(fresh, old)).toBe(200);
    expect(await ssoStatus(old)).toBe(200);
    t.clock.advanceSeconds(1);
    expect(await validateStatus(fresh, old)).toBe(401);
    expect(await tokenStatus(old)).toBe(401);
    expect(await ssoStatus(old)).toBe(401);
    expect(await validateStatus(fresh, renewed)).toBe(200);
  });

  it('with an overlap of 0 refuses the old secret at once on a token that just used it', async () => {
    expect(await validateStatus(c.token, c.g)).toBe(200);
    const rotated = await rotateOrganizationSecret(onboarding(), c.g.organizationId, 0);
    expect(await validateStatus(c.token, c.g)).toBe(401);
    expect(await tokenStatus(c.g)).toBe(401);
    expect(await validateStatus(c.token, { ...c.g, organizationSecret: rotated.organization_secret })).toBe(200);
  });

  it("leaves another organization's secret as it was", async () => {
    const other = await givenSecondOrganization(c.g);
    const otherToken = await requestToken(t, other);
    await rotateOrganizationSecret(onboarding(), c.g.organizationId, 0);
    expect(await validateStatus(otherToken, other)).toBe(200);
    expect(await tokenStatus(other)).toBe(200);
  });

  it('refuses an unknown organization', async () => {
    await expect(rotateOrganizationSecret(onboarding(), '7d8a2f4e-1111-4a4a-8a8a-000000000000', 24)).rejects.toThrow(/organization .* not found/);
  });
});

describe('erx org disable-partner', () => {
  it("ends the partner's tokens, unspent SSO links and portal sessions for that organization at once, and nothing else", async () => {
    const session = await signIn(t, c.g);
    const unspent = await mintSsoUrl(t, c.g, '/dashboard');
    const other = await givenSecondOrganization(c.g);
    const otherSession = await signIn(t, other);
    const otherToken = await requestToken(t, other);
    const secondPartner = await givenPartner(t);
    await enablePartnerForOrganization(onboarding(), { organizationId: c.g.organizationId, partnerId: secondPartner.partner_id });
    const viaSecond = { ...c.g, partnerId: secondPartner.partner_id, partnerSecret: secondPartner.partner_secret };
    const secondSession = await signIn(t, viaSecond);
    expect(await validateStatus(c.token, c.g)).toBe(200);

    const result = await disablePartnerForOrganization(onboarding(), { organizationId: c.g.organizationId, partnerId: c.g.partnerId });
    expect(result).toEqual({ organization_id: c.g.organizationId, partner_id: c.g.partnerId, already_disabled: false, sessions_ended: 1, sso_links_revoked: 1 });

    expect(await validateStatus(c.token, c.g)).toBe(401);
    expect(await tokenStatus(c.g)).toBe(401);
    const landing = await t.app.inject({ method: 'GET', url: pathOf(unspent) });
    expect(landing.statusCode).toBe(401);
    expect(sessionCookieOf(landing)).toBeUndefined();
    expect(await dashboardStatus(session.cookie)).toBe(401);

    expect(await validateStatus(otherToken, other)).toBe(200);
    expect(await dashboardStatus(otherSession.cookie)).toBe(200);
    expect(await dashboardStatus(secondSession.cookie)).toBe(200);
  });

  it('stays in force when the partner is enabled again: the ended tokens, session and revoked link do not come back', async () => {
    const session = await signIn(t, c.g);
    const unspent = await mintSsoUrl(t, c.g, '/dashboard');
    expect(await validateStatus(c.token, c.g)).toBe(200);
    t.clock.advanceSeconds(1);
    await disablePartnerForOrganization(onboarding(), { organizationId: c.g.organizationId, partnerId: c.g.partnerId });
    await enablePartnerForOrganization(onboarding(), { organizationId: c.g.organizationId, partnerId: c.g.partnerId });
    expect(await validateStatus(c.token, c.g)).toBe(401);
    expect(await dashboardStatus(session.cookie)).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: pathOf(unspent) })).statusCode).toBe(401);
    expect(await dashboardStatus((await signIn(t, c.g)).cookie)).toBe(200);
    expect(await validateStatus(await requestToken(t, c.g), c.g)).toBe(200);
  });

  it('says so when the partner was not enabled, and refuses unknown ids', async () => {
    const stranger = await givenPartner(t);
    const again = await disablePartnerForOrganization(onboarding(), { organizationId: c.g.organizationId, partnerId: stranger.partner_id });
    expect(again).toMatchObject({ already_disabled: true, sessions_ended: 0, sso_links_revoked: 0 });
    await expect(disablePartnerForOrganization(onboarding(), { organizationId: c.g.organizationId, partnerId: 'no-such-partner' })).rejects.toThrow(
      'partner no-such-partner not found',
    );
    await expect(
      disablePartnerForOrganization(onboarding(), { organizationId: '7d8a2f4e-1111-4a4a-8a8a-000000000000', partnerId: c.g.partnerId }),
    ).rejects.toThrow(/organization .* not found/);
    expect(await validateStatus(c.token, c.g)).toBe(200);
  });
});

describe('erx sessions revoke', () => {
  it("ends every portal session of the organization, says how many, and leaves another organization's", async () => {
    const colleague = await givenUser(t, c.g.organizationId, ['provider']);
    const sessions = [await signIn(t, c.g), await signIn(t, c.g, '/dashboard', colleague.user_id)];
    const other = await givenSecondOrganization(c.g);
    const otherSession = await signIn(t, other);
    const result = await revokePortalSessions(onboarding(), { organizationId: c.g.organizationId });
    expect(result).toEqual({ organization_id: c.g.organizationId, user_id: null, sessions_ended: 2 });
    for (const session of sessions) expect(await dashboardStatus(session.cookie)).toBe(401);
    expect(await dashboardStatus(otherSession.cookie)).toBe(200);
  });

  it("with a user ends only that user's sessions", async () => {
    const colleague = await givenUser(t, c.g.organizationId, ['provider']);
    const mine = await signIn(t, c.g);
    const theirs = await signIn(t, c.g, '/dashboard', colleague.user_id);
    const result = await revokePortalSessions(onboarding(), { organizationId: c.g.organizationId, userId: colleague.user_id });
    expect(result.sessions_ended).toBe(1);
    expect(await dashboardStatus(theirs.cookie)).toBe(401);
    expect(await dashboardStatus(mine.cookie)).toBe(200);
  });

  it("refuses another organization's user and an unknown organization, ending nothing", async () => {
    const other = await givenSecondOrganization(c.g);
    const otherSession = await signIn(t, other);
    await expect(revokePortalSessions(onboarding(), { organizationId: c.g.organizationId, userId: other.userId })).rejects.toThrow(/not found in organization/);
    await expect(revokePortalSessions(onboarding(), { organizationId: '7d8a2f4e-1111-4a4a-8a8a-000000000000' })).rejects.toThrow(/organization .* not found/);
    expect(await dashboardStatus(otherSession.cookie)).toBe(200);
  });
});

describe('signing in again in the same browser', () => {
  const openWithCookie = (url: string, cookie: string) => t.app.inject({ method: 'GET', url: pathOf(url), headers: { cookie } });

  it("ends that browser's earlier session when the new one opens", async () => {
    const first = await signIn(t, c.g);
    const elsewhere = await signIn(t, c.g);
    const landing = await openWithCookie(await mintSsoUrl(t, c.g, '/dashboard'), first.cookie);
    expect(landing.statusCode).toBe(303);
    const second = sessionCookieOf(landing)!;
    expect(second).not.toBe(first.cookie);
    expect(await dashboardStatus(first.cookie)).toBe(401);
    expect(await dashboardStatus(second)).toBe(200);
    expect(await dashboardStatus(elsewhere.cookie)).toBe(200);
  });

  it('keeps the earlier session when the new link is refused', async () => {
    const first = await signIn(t, c.g);
    const spent = await mintSsoUrl(t, c.g, '/dashboard');
    expect((await t.app.inject({ method: 'GET', url: pathOf(spent) })).statusCode).toBe(303);
    expect((await openWithCookie(spent, first.cookie)).statusCode).toBe(401);
    expect(await dashboardStatus(first.cookie)).toBe(200);
  });
});
