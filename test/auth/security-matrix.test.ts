// Walks every registered authenticated /v1 route (so routes added later are covered without
// editing this file) and proves each credential failure gives the right 401 and changes nothing.
import { describe, expect, it } from 'vitest';
import { SCOPES, type Scope, type RouteCatalogEntry } from '../../src/auth/index.ts';
import { signAccessToken } from '../../src/auth/access-tokens.ts';
import { generateSigningKeyPem, signingKeysFromPem } from '../../src/platform/signing-keys.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { PRESCRIPTION_CHANGES } from '../../src/prescriptions/index.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { bearer, givenIntegration, requestToken, useTestApp } from '../given.ts';
import { createTestApp } from '../test-app.ts';
import { API_ROUTE_MODULES, PORTAL_ROUTE_MODULES } from '../../src/app.ts';
import type { App, RouteModule } from '../../src/route-module.ts';
import { givenPatient, givenPrescription, makeReadyToPrescribe } from '../prescriptions/prescriptions-given.ts';

let fullToken: string;
let foreignKeyToken: string;
let expiredToken: string;
let otherOrgToken: string;
/** A real patient and prescription of g's organization: were a route's check missing, its request would reach them. */
let patientId: string;
let scid: string;

const RANDOM_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';

const { t, g, other } = useTestApp({}, async (t, client) => {
  const { g } = client;
  const other = await givenIntegration(t);
  fullToken = await requestToken(t, g);
  otherOrgToken = await requestToken(t, other);
  const claims = { partnerId: g.partnerId, organizationId: g.organizationId, userId: g.ownerId, scopes: [...SCOPES] };
  // Same kid as the real key, so only the signature can tell them apart.
  const foreignKeys = { ...(await signingKeysFromPem(generateSigningKeyPem())), kid: t.deps.keys.kid };
  foreignKeyToken = await signAccessToken(claims, foreignKeys, t.clock, 3600);
  const past = new ManualClock(new Date(t.clock.now().getTime() - 2 * 3600 * 1000));
  expiredToken = await signAccessToken(claims, t.deps.keys, past, 3600);
  const headers = client.prescriber;
  await makeReadyToPrescribe(t, { g, headers }, g.userId);
  const patient = await givenPatient(t, { g, headers });
  patientId = patient.patientId;
  scid = (await givenPrescription(t, { ...client, headers, ...patient })).scid;
  return { g, other };
});

function authenticatedRoutes(): Array<RouteCatalogEntry & { scopes: Scope[] }> {
  return t.app.routeCatalog.flatMap((entry) => (entry.auth.kind === 'bearer' ? [{ ...entry, scopes: [...entry.auth.scopes] }] : []));
}

function concreteUrl(url: string, organizationId: string): string {
  return url
    .replace(':organization_id', organizationId)
    .replace(':user_id', g.ownerId)
    .replace(':patient_id', patientId)
    .replace(':scid', scid)
    .replace(/:[a-z_]+/g, RANDOM_ID);
}

async function expectUnchanged401(route: RouteCatalogEntry, headers: Record<string, string>, detail: string, organizationId = g.organizationId) {
  const before = await snapshotDatabase(t.deps.database);
  const response = await t.app.inject({
    method: route.method as 'GET',
    url: concreteUrl(route.url, organizationId),
    headers: { ...headers, 'content-type': 'application/json' },
    ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: '{}' }),
  });
  expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
  expect(response.json()).toMatchObject({ success: false, statusCode: 401, error: { detail } });
  expect(response.json().error.type).toMatch(/\/authentication-required$/);
  expect(await snapshotDatabase(t.deps.database)).toEqual(before);
}

describe('security matrix over every authenticated /v1 route', () => {
  it('covers the routes registered so far', () => {
    const urls = authenticatedRoutes().map((r) => `${r.method} ${r.url}`);
    expect(urls).toContain('GET /v1/organizations/:organization_id/validate');
    const patient = '/v1/organizations/:organization_id/users/:user_id/patients/:patient_id';
    const helpers = `/v1/test-helpers${patient.slice(3)}/prescriptions`;
    expect(urls).toEqual(
      expect.arrayContaining([
        `GET ${patient}`,
        `DELETE ${patient}`,
        `GET ${patient}/prescriptions`,
        `GET ${patient}/prescriptions/:scid`,
        `POST ${helpers}`,
        ...PRESCRIPTION_CHANGES.map((action) => `POST ${helpers}/:scid/${action}`),
      ]),
    );
  });

  it('rejects a request without a token', async () => {
    for (const route of authenticatedRoutes()) {
      await expectUnchanged401(route, { 'x-organization-secret': g.organizationSecret }, 'Valid authentication token is required');
    }
  });

  it('rejects an expired token', async () => {
    for (const route of authenticatedRoutes()) {
      await expectUnchanged401(route, bearer(expiredToken, g), 'Valid authentication token is required');
    }
  });

  it('rejects a token signed by another key', async () => {
    for (const route of authenticatedRoutes()) {
      await expectUnchanged401(route, bearer(foreignKeyToken, g), 'Valid authentication token is required');
    }
  });

  it('rejects a malformed bearer value', async () => {
    for (const route of authenticatedRoutes()) {
      await expectUnchanged401(route, { ...bearer(fullToken, g), authorization: 'Bearer not.a.jwt' }, 'Valid authentication token is required');
    }
  });

  it('reads the bearer scheme in any case with any whitespace around the token, and nothing else', async () => {
    const validate = (authorization: string) =>
      t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: { ...bearer(fullToken, g), authorization } });
    for (const accepted of [`Bearer ${fullToken}`, `bearer ${fullToken}`, `BEARER\t${fullToken}`, `Bearer   ${fullToken}  `]) {
      expect((await validate(accepted)).statusCode, accepted.slice(0, 10)).toBe(200);
    }
    const middle = Math.floor(fullToken.length / 2);
    const refused = ['Bearer', 'Bearer ', `Bearer${fullToken}`, `Basic ${fullToken}`, `Bearer ${fullToken.slice(0, middle)} ${fullToken.slice(middle)}`, `Token ${fullToken}`];
    for (const authorization of refused) {
      const response = await validate(authorization);
      expect(response.statusCode, authorization.slice(0, 10)).toBe(401);
      expect(response.json().error.detail).toBe('Valid authentication token is required');
    }
  });

  it('does not take a forged token for a verified one that ends in the same signature characters', async () => {
    const validate = (token: string) => t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect((await validate(fullToken)).statusCode).toBe(200); // verified now, and remembered
    const [header, payload, signature] = fullToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, scope: `${claims.scope} forged` })).toString('base64url');
    const forged = `${header}.${forgedPayload}.${'A'.repeat(10)}${signature.slice(10)}`;
    expect(forged.slice(-32)).toBe(fullToken.slice(-32));
    const response = await validate(forged);
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Valid authentication token is required');
  });

  it('rejects a wrong or missing organization secret', async () => {
    for (const route of authenticatedRoutes()) {
      await expectUnchanged401(route, { ...bearer(fullToken, g), 'x-organization-secret': other.organizationSecret }, 'Invalid client credentials');
      await expectUnchanged401(route, { authorization: `Bearer ${fullToken}` }, 'Invalid client credentials');
    }
  });

  it("rejects another organization's token (with that organization's own secret)", async () => {
    for (const route of authenticatedRoutes()) {
      await expectUnchanged401(route, bearer(otherOrgToken, other), 'Invalid client credentials', g.organizationId);
    }
  });

  it('rejects a token that lacks the scope the route needs', async () => {
    for (const route of authenticatedRoutes()) {
      const scopes = SCOPES.filter((scope) => !route.scopes.includes(scope));
      const token = await requestToken(t, g, scopes, g.ownerId);
      await expectUnchanged401(route, bearer(token, g), 'Insufficient scope');
    }
  });

  it('rejects the token of a user disabled after it was issued, from the next request on', async () => {
    const token = await requestToken(t, g, [...SCOPES], g.userId);
    const validate = () => t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect((await validate()).statusCode).toBe(200); // the request before: the user's state is now known (and cached)
    await t.deps.database.updateTable('users').set({ enabled: 0 }).where('id', '=', g.userId).execute();
    try {
      for (const route of authenticatedRoutes()) {
        await expectUnchanged401(route, bearer(token, g), 'Valid authentication token is required');
      }
    } finally {
      await t.deps.database.updateTable('users').set({ enabled: 1 }).where('id', '=', g.userId).execute();
    }
    expect((await validate()).statusCode).toBe(200);
  });

  it("rejects a used token once the organization's secret changes or the partner is no longer enabled there", async () => {
    const token = await requestToken(t, g, [...SCOPES], g.userId);
    const validate = () => t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    const organizations = () => t.deps.database.updateTable('organizations').where('id', '=', g.organizationId);
    const { secret_hash } = await t.deps.database.selectFrom('organizations').select('secret_hash').where('id', '=', g.organizationId).executeTakeFirstOrThrow();
    expect((await validate()).statusCode).toBe(200);
    await organizations().set({ secret_hash: 'rotated' }).execute();
    expect((await validate()).json().error.detail).toBe('Invalid client credentials');
    await organizations().set({ secret_hash }).execute();
    expect((await validate()).statusCode).toBe(200);

    const enablement = await t.deps.database.selectFrom('organization_partners').selectAll().where('organization_id', '=', g.organizationId).where('partner_id', '=', g.partnerId).executeTakeFirstOrThrow();
    await t.deps.database.deleteFrom('organization_partners').where('organization_id', '=', g.organizationId).where('partner_id', '=', g.partnerId).execute();
    try {
      expect((await validate()).json().error.detail).toBe('Valid authentication token is required');
    } finally {
      await t.deps.database.insertInto('organization_partners').values(enablement).execute();
    }
    expect((await validate()).statusCode).toBe(200);
  });
});

describe('route declarations', () => {
  it('refuses to start when an API route declares no auth, or a portal route bearer auth', async () => {
    const undeclared: RouteModule = (app) => app.get('/v1/organizations/:organization_id/undeclared', async () => ({}));
    await expect(createTestApp({ surfaces: { api: [...API_ROUTE_MODULES, undeclared], portal: PORTAL_ROUTE_MODULES } })).rejects.toThrow(
      /GET \/v1\/organizations\/:organization_id\/undeclared declares no auth/,
    );
    const bearerInPortal: RouteModule = (app) =>
      app.route({ method: 'GET', url: '/dashboard/undeclared', config: { auth: { kind: 'bearer', scopes: ['read:patient'] } }, handler: async () => ({}) });
    await expect(createTestApp({ surfaces: { api: API_ROUTE_MODULES, portal: [...PORTAL_ROUTE_MODULES, bearerInPortal] } })).rejects.toThrow(
      /declares auth kind "bearer"; this context serves public, session/,
    );
  });

  it('refuses to start with a route added outside the API and portal contexts, which no auth hook guards, unless it declares itself public', async () => {
    const stray = (app: App) => app.get('/v1/organizations/:organization_id/stray', { config: { auth: { kind: 'bearer', scopes: ['read:patient'] } } }, async () => ({ secret: true }));
    await expect(createTestApp({ extend: stray })).rejects.toThrow(
      /routes outside the API and portal contexts carry no auth check \(declare them in a context, or as public\): GET \/v1\/organizations\/:organization_id\/stray/,
    );
    const undeclared = (app: App) => app.get('/undeclared', async () => ({}));
    await expect(createTestApp({ extend: undeclared })).rejects.toThrow(/carry no auth check .*: GET \/undeclared$/);
    const declaredPublic = await createTestApp({ extend: (app) => app.get('/open', { config: { auth: { kind: 'public' } } }, async () => ({})) });
    await declaredPublic.close();
  });
});
