// erx partner rotate-secret, org rotate-secret, org disable-partner and sessions revoke, run as
// separate processes against the database of a running server: what they print, and that the
// server honours the change on its next request (its cached checks notice another process's
// write). The overlap's end is shown with a moved clock in test/auth/credential-lifecycle.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import { createOrganization, createPartner, createUser, enablePartnerForOrganization } from '../../src/onboarding/index.ts';
import { assembleDeps } from '../../src/runtime.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from './cli-helpers.ts';

let cli: CliEnvironment;
let server: RunningServer;
let features: Features;

interface Credentials {
  partner: string;
  partnerSecret: string;
  org: string;
  orgSecret: string;
  user: string;
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;
const UNKNOWN_ORG = '7d8a2f4e-1111-4a4a-8a8a-000000000000';

beforeAll(async () => {
  cli = createCliEnvironment();
  const deps = await assembleDeps(loadConfig({ ...cli.env, PORT: '0' }));
  features = buildFeatures(deps);
  server = await startServer(deps, features);
});
afterAll(async () => {
  await server?.stop();
  await cli.cleanup();
});

let partners = 0;
/**
 * A partner, an organization that enabled it and a prescriber, made by the server's own
 * services (as `erx partner create` and the rest would: test/cli/cli.test.ts runs those), so
 * only the commands under test start a process.
 */
async function onboard(partnerId = `rotating-${++partners}`): Promise<Credentials> {
  const ctx = features.onboarding;
  const partner = await createPartner(ctx, { partnerId });
  const org = await createOrganization(ctx, { name: `Clinic of ${partnerId}` });
  await enablePartnerForOrganization(ctx, { organizationId: org.organization_id, partnerId });
  const user = await createUser(ctx, { organizationId: org.organization_id, email: `${partnerId}@example.test`, givenName: 'A', familyName: 'B', roles: ['provider'] });
  return { partner: partnerId, partnerSecret: partner.partner_secret, org: org.organization_id, orgSecret: org.organization_secret, user: user.user_id };
}

function credentialHeaders(c: Credentials): Record<string, string> {
  return { 'content-type': 'application/json', 'x-partner-id': c.partner, 'x-partner-secret': c.partnerSecret, 'x-organization-id': c.org, 'x-organization-secret': c.orgSecret, 'x-user-id': c.user };
}

async function tokenResponse(c: Credentials): Promise<Response> {
  return fetch(`${server.url}/v1/token`, { method: 'POST', headers: credentialHeaders(c), body: JSON.stringify({ grantType: 'client_credentials', scope: ['create:patient'] }) });
}

async function tokenOf(c: Credentials): Promise<string> {
  const response = await tokenResponse(c);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { accessToken: string } }).data.accessToken;
}

async function validateStatus(c: Credentials, token: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/organizations/${c.org}/validate`, { headers: { authorization: `Bearer ${token}`, 'x-organization-secret': c.orgSecret } });
  return response.status;
}

/** A portal session opened through the partner's SSO link; its cookie (`name=value`). */
async function signIn(c: Credentials): Promise<string> {
  const minted = await fetch(`${server.url}/v1/sso`, { method: 'POST', headers: credentialHeaders(c), body: JSON.stringify({ redirect_path: '/dashboard' }) });
  expect(minted.status).toBe(200);
  const link = new URL(((await minted.json()) as { data: { redirect_url: string } }).data.redirect_url);
  const landing = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: 'manual' });
  expect(landing.status).toBe(303);
  return landing.headers.get('set-cookie')!.split(';')[0]!;
}

async function dashboardStatus(cookie: string): Promise<number> {
  return (await fetch(`${server.url}/dashboard`, { headers: { cookie }, redirect: 'manual' })).status;
}

describe('erx partner rotate-secret and org rotate-secret', () => {
  it('print the new secret once; by default the old one keeps working', async () => {
    const c = await onboard();
    const partner = await runErx(cli.env, ['partner', 'rotate-secret', c.partner]);
    expect(partner.code).toBe(0);
    const printed = /partner_secret:\s+(\S+)\s+\(shown once/.exec(partner.stdout)?.[1];
    expect(printed).toMatch(SECRET);
    expect(partner.stdout).toMatch(/the old secret keeps working until \d{4}-\d\d-\d\dT/);
    const org = await runErx(cli.env, ['org', 'rotate-secret', c.org]);
    expect(org.code).toBe(0);
    const orgSecret = /organization_secret:\s+(\S+)\s+\(shown once/.exec(org.stdout)?.[1];
    expect(orgSecret).toMatch(SECRET);
    expect((await tokenResponse(c)).status).toBe(200);
    expect((await tokenResponse({ ...c, partnerSecret: printed!, orgSecret: orgSecret! })).status).toBe(200);
  }, 60_000);

  it('with --overlap-hours 0 --json: the running server refuses the old secrets at once, on a token that just used them too', async () => {
    const c = await onboard();
    const token = await tokenOf(c);
    expect(await validateStatus(c, token)).toBe(200);
    const partner = await runErxJson(cli.env, ['partner', 'rotate-secret', c.partner, '--overlap-hours', '0']);
    expect(partner).toEqual({ partner_id: c.partner, partner_secret: expect.stringMatching(SECRET), previous_secret_valid_until: null });
    expect((await tokenResponse(c)).status).toBe(401);
    const org = await runErxJson(cli.env, ['org', 'rotate-secret', c.org, '--overlap-hours', '0']);
    expect(org).toEqual({ organization_id: c.org, organization_secret: expect.stringMatching(SECRET), previous_secret_valid_until: null });
    expect(await validateStatus(c, token)).toBe(401);
    const renewed = { ...c, partnerSecret: partner.partner_secret, orgSecret: org.organization_secret };
    expect(await validateStatus(renewed, token)).toBe(200);
    expect((await tokenResponse(renewed)).status).toBe(200);
  }, 60_000);
});

describe('erx org disable-partner', () => {
  it("stops the partner's token and portal session for the organization at once", async () => {
    const c = await onboard();
    const token = await tokenOf(c);
    const cookie = await signIn(c);
    expect(await dashboardStatus(cookie)).toBe(200);
    const result = await runErxJson(cli.env, ['org', 'disable-partner', c.org, c.partner]);
    expect(result).toEqual({ organization_id: c.org, partner_id: c.partner, already_disabled: false, sessions_ended: 1, sso_links_revoked: 0 });
    expect(await validateStatus(c, token)).toBe(401);
    expect(await dashboardStatus(cookie)).toBe(401);
    const again = await runErx(cli.env, ['org', 'disable-partner', c.org, c.partner]);
    expect(again.stdout).toContain(`already disabled: partner ${c.partner} for organization ${c.org}`);
  }, 60_000);
});

describe('erx sessions revoke', () => {
  it('ends the portal sessions of the organization and prints how many', async () => {
    const c = await onboard();
    const cookies = [await signIn(c), await signIn(c)];
    const other = await onboard();
    const otherCookie = await signIn(other);
    const result = await runErx(cli.env, ['sessions', 'revoke', '--organization', c.org]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`ended 2 portal session(s) of organization ${c.org}\n`);
    for (const cookie of cookies) expect(await dashboardStatus(cookie)).toBe(401);
    expect(await dashboardStatus(otherCookie)).toBe(200);
    expect(await runErxJson(cli.env, ['sessions', 'revoke', '--organization', c.org, '--user', c.user])).toEqual({ organization_id: c.org, user_id: c.user, sessions_ended: 0 });
  }, 60_000);
});

describe('bad input', () => {
  it.each([
    [['partner', 'rotate-secret', 'no-such-partner'], /partner no-such-partner not found/],
    [['org', 'rotate-secret', UNKNOWN_ORG], /organization .* not found/],
    [['partner', 'rotate-secret', 'no-such-partner', '--overlap-hours', 'abc'], /--overlap-hours.*'abc' is invalid/],
    [['org', 'rotate-secret', UNKNOWN_ORG, '--overlap-hours', '1.5'], /--overlap-hours.*'1.5' is invalid/],
    [['partner', 'rotate-secret', 'no-such-partner', '--overlap-hours', '721'], /whole number of hours from 0 to 720, got 721/],
    [['org', 'disable-partner', UNKNOWN_ORG, 'no-such-partner'], /organization .* not found/],
    [['sessions', 'revoke'], /required option '--organization <organization_id>'/],
  ])('fails with one clear line and a non-zero exit: erx %s', async (args, message) => {
    expectOneLineRefusal(await runErx(cli.env, args as string[]), message as RegExp);
  });

  it("refuses to revoke another organization's user's sessions, and a partner unknown to disable-partner", async () => {
    const c = await onboard();
    const other = await onboard();
    const otherCookie = await signIn(other);
    const revoke = await runErx(cli.env, ['sessions', 'revoke', '--organization', c.org, '--user', other.user]);
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toMatch(/^erx: user .* not found in organization/);
    expect(await dashboardStatus(otherCookie)).toBe(200);
    const disable = await runErx(cli.env, ['org', 'disable-partner', c.org, 'no-such-partner']);
    expect(disable.code).toBe(1);
    expect(disable.stderr).toBe('erx: partner no-such-partner not found\n');
  }, 60_000);
});
