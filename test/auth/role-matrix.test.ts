// The role half of the security matrix. Every route and page that declares a capability
// (capabilities.ts) is called by a user of every role that does not hold it, each with every
// scope: the answer is the route's refusal (403, or the spec's 401 on the custom-drug
// catalog) and the database is unchanged. The cases come from the route catalog and the
// capability table, so a route added later is covered; the table below pins which routes
// must declare which capability, so a route that lost its rule fails here too.
import { describe, expect, it } from 'vitest';
import { ROLES, type Capability, type Role, type RouteCatalogEntry } from '../../src/auth/index.ts';
import { rolesWith } from '../../src/auth/capabilities.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { bearer, givenUser, requestToken, useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { signIn, type PortalClient } from '../portal/portal-given.ts';

let t: TestApp;
let c: Clinic;
let scid: string;
const users = new Map<Role, string>();

useTestApp({}, async (app) => {
  t = app;
  c = await givenClinic(t);
  scid = (await givenPrescription(t, c)).scid;
  for (const role of ROLES) users.set(role, (await givenUser(t, c.g.organizationId, [role])).user_id);
  return {};
});

const ORGANIZATION_ROUTES = '/v1/organizations/:organization_id';
const PORTAL_PRESCRIPTIONS = ['/embed', '/dashboard'].map((frame) => `${frame}/patients/:patient_id/prescriptions`);

/** The capability each of these routes must declare (the DESIGN.md table, route by route). */
const EXPECTED: Record<string, Capability> = {
  [`POST ${ORGANIZATION_ROUTES}/users`]: 'manage_users',
  [`PUT ${ORGANIZATION_ROUTES}/users/:user_id/roles`]: 'manage_users',
  [`PUT ${ORGANIZATION_ROUTES}/users/:user_id/disable`]: 'manage_users',
  [`PUT ${ORGANIZATION_ROUTES}/users/:user_id/enable`]: 'manage_users',
  [`PUT ${ORGANIZATION_ROUTES}/users/:user_id`]: 'update_user_details',
  // An owner's or admin's reset of another user's MFA factors (issue 39).
  'GET /dashboard/users/mfa': 'manage_users',
  'POST /dashboard/users/:user_id/mfa-reset': 'manage_users',
  [`POST ${ORGANIZATION_ROUTES}/custom-drugs`]: 'manage_organization_drugs',
  [`GET ${ORGANIZATION_ROUTES}/custom-drugs`]: 'manage_organization_drugs',
  'GET /dashboard': 'portal:patients',
  'GET /dashboard/patients/:patient_id': 'portal:patients',
  ...Object.fromEntries(
    PORTAL_PRESCRIPTIONS.flatMap((base) => [
      [`GET ${base}`, 'portal:prescribe'],
      [`POST ${base}`, 'portal:prescribe'],
      [`GET ${base}/:scid`, 'portal:read_prescriptions'],
      [`POST ${base}/:scid/cease`, 'portal:prescribe'],
      [`POST ${base}/:scid/cancel`, 'portal:prescribe'],
      [`POST ${base}/:scid/reissue`, 'portal:reissue'],
      // Writing a Pending prescription on paper instead (issue 40 item 5).
      [`POST ${base}/:scid/paper`, 'portal:prescribe'],
    ]),
  ),
  ...Object.fromEntries(
    ['/embed', '/dashboard'].flatMap((frame) => [
      [`GET ${frame}/patients/:patient_id/prescription-drafts`, 'portal:prepare_draft'],
      [`POST ${frame}/patients/:patient_id/prescription-drafts`, 'portal:prepare_draft'],
      [`GET ${frame}/prescriptions/approval`, 'portal:draft_queue'],
      [`GET ${frame}/prescriptions/approval/:draft_id`, 'portal:draft_queue'],
      [`POST ${frame}/prescriptions/approval/:draft_id/approve`, 'portal:approve_draft'],
      [`POST ${frame}/prescriptions/approval/:draft_id/decline`, 'portal:approve_draft'],
    ]),
  ),
};

/** Session pages anyone signed in may use. */
const OPEN_TO_EVERY_SESSION = [
  'POST /auth/sign-out',
  // Each user's own MFA: the factor page, enrolment, presenting a factor, their own factors and recovery codes.
  ...['/dashboard', '/embed'].flatMap((frame) => [
    `GET ${frame}/mfa`,
    `POST ${frame}/mfa/totp`,
    `POST ${frame}/mfa/recovery`,
    `POST ${frame}/mfa/passkey/options`,
    `POST ${frame}/mfa/passkey/verify`,
    `GET ${frame}/mfa/done`,
    `GET ${frame}/mfa/enrol`,
    `POST ${frame}/mfa/enrol/totp`,
    `POST ${frame}/mfa/enrol/passkey/options`,
    `POST ${frame}/mfa/enrol/passkey/verify`,
    `GET ${frame}/mfa/recovery-codes`,
    `POST ${frame}/mfa/recovery-codes`,
    `GET ${frame}/mfa/factors`,
    `POST ${frame}/mfa/factors/:factor_id/remove`,
  ]),
];

/**
 * The walks below make one case per route and refused role (about a hundred, each with two
 * database snapshots): seconds alone, but several times that on a CI machine running Chromium
 * beside PostgreSQL, so they get more than the default 20 s.
 */
const WALK_TIMEOUT_MS = 120_000;

const capabilityOf = (route: RouteCatalogEntry) => (route.auth.kind === 'public' || route.auth.kind === 'partner' ? undefined : route.auth.capability);
const declaring = () => t.app.routeCatalog.filter((route) => capabilityOf(route) !== undefined);
const refusedRoles = (capability: Capability) => ROLES.filter((role) => !rolesWith(capability).includes(role));

function concreteUrl(url: string): string {
  return url
    .replace(':organization_id', c.g.organizationId)
    .replace(':user_id', c.g.ownerId) // never the caller: "own details" is not what is tested here
    .replace(':patient_id', c.patientId)
    .replace(':scid', scid)
    .replace(/:[a-z_]+/g, '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c');
}

async function expectRefused(route: RouteCatalogEntry, send: () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, status: number) {
  const before = await snapshotDatabase(t.deps.database);
  const response = await send();
  expect(response.statusCode, `${route.method} ${route.url}`).toBe(status);
  expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  return response;
}

describe('the role matrix', () => {
  it('finds every route of the capability table declaring its capability, and every other session page open to all on purpose', () => {
    const declared = Object.fromEntries(declaring().map((route) => [`${route.method} ${route.url}`, capabilityOf(route)]));
    expect(declared).toMatchObject(EXPECTED);
    const undeclaredSessionPages = t.app.routeCatalog.filter((route) => route.auth.kind === 'session' && capabilityOf(route) === undefined);
    expect(undeclaredSessionPages.map((route) => `${route.method} ${route.url}`)).toEqual(OPEN_TO_EVERY_SESSION);
  });

  it('refuses every bearer route to a token of each role without its capability, with every scope, changing nothing', async () => {
    const routes = declaring().filter((route) => route.auth.kind === 'bearer');
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) {
      if (route.auth.kind !== 'bearer') continue;
      for (const role of refusedRoles(route.auth.capability!)) {
        const headers = bearer(await requestToken(t, c.g, undefined, users.get(role)), c.g);
        const send = () => t.app.inject({ method: route.method as 'GET', url: concreteUrl(route.url), headers: { ...headers, 'content-type': 'application/json' }, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: '{}' }) });
        const response = await expectRefused(route, send, route.auth.roleFailure ?? 401);
        expect(response.body, `${role}: ${route.method} ${route.url}`).toContain('Insufficient permissions');
      }
    }
  }, WALK_TIMEOUT_MS);

  it('refuses every portal page to a session of each role without its capability (a 403 page), changing nothing', async () => {
    const sessions = new Map<Role, PortalClient>();
    const sessionOf = async (role: Role) => sessions.get(role) ?? sessions.set(role, await signIn(t, c.g, '/dashboard', users.get(role))).get(role)!;
    const routes = declaring().filter((route) => route.auth.kind === 'session');
    expect(routes.length).toBeGreaterThanOrEqual(15);
    for (const route of routes) {
      if (route.auth.kind !== 'session') continue;
      const instead = route.auth.instead;
      for (const role of refusedRoles(route.auth.capability!)) {
        const session = await sessionOf(role);
        // A real form of the session (its CSRF token) where one exists, so only the role can refuse the post.
        const send = () => (route.method === 'GET' ? session.get(concreteUrl(route.url)) : session.post(concreteUrl(route.url), { confirm: 'yes', ...FORM }));
        // A role the route sends elsewhere (a queue manager, to the draft form: issue 40 item 7) is redirected, not refused; still nothing changes.
        if (instead && rolesWith(instead.capability).includes(role)) {
          expect((await expectRefused(route, send, 303)).headers.location, `${role}: ${route.method} ${route.url}`).toMatch(/\/prescription-drafts$/);
          continue;
        }
        const response = await expectRefused(route, send, 403);
        expect(response.body, `${role}: ${route.method} ${route.url}`).toContain('does not give access to this page');
      }
    }
  }, WALK_TIMEOUT_MS);
});

const FORM = { medicine: 'pbs:2622B', quantity: '20', repeats: '0', send_to: 'patient-sms', intent: 'create' };
