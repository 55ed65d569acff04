// Two more halves of the security matrix. Tenancy: every bearer route with ids in its path,
// called by the owner of organization A (every scope, every capability) under A's own path
// with one id at a time taken from organization B, answers 404 and changes nothing (the whole
// database is compared, B's rows included). Credentials: /v1/token and /v1/sso refuse wrong
// secrets, a partner the organization has not enabled and a disabled user, writing nothing.
import { describe, expect, it } from 'vitest';
import type { RouteCatalogEntry } from '../../src/auth/index.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { bearer, givenPartner, givenUser, requestToken, tokenHeaders, useTestApp } from '../given.ts';
import { DEMO, patientBody } from '../patients/patients-given.ts';
import { givenClinic, givenPrescription, prescribeBody, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';

let t: TestApp;
let a: Clinic;
let b: Clinic;
/** Each path id of A (the caller's own) and of B, by parameter name. */
let own: Record<string, string>;
let foreign: Record<string, string>;

useTestApp({}, async (app) => {
  t = app;
  [a, b] = [await givenClinic(t), await givenClinic(t)];
  const idsOf = async (c: Clinic) => ({
    user_id: c.g.userId,
    patient_id: c.patientId,
    scid: (await givenPrescription(t, c)).scid,
    catalog_drug_id: (await givenCatalogDrugs(t, c, [validDrug()]))[0]!,
    user_drug_id: await givenUserDrug(t, c, validDrug()),
  });
  [own, foreign] = [await idsOf(a), await idsOf(b)];
  return {};
});

/** A body each route would accept, so only the tenancy check can stop it. */
function bodyFor(route: RouteCatalogEntry): unknown {
  const { method, url } = route;
  if (url.endsWith('/patients') && method === 'POST') return patientBody(a.g, DEMO.activeVerified, { medicare_card_number: DEMO.activeVerified.medicare_card_number, medicare_irn: DEMO.activeVerified.medicare_irn });
  if (url.endsWith('/patients/:patient_id') && method === 'PUT') return { phone: '0491570006' };
  if (url.endsWith('custom-drugs') && method === 'POST') return validDrug();
  if (url.endsWith(':custom_drug_id') && method === 'PUT') return { item_generic_name: 'Renamed' };
  if (url.endsWith('/roles')) return { access_roles: ['admin'] };
  if (url.endsWith('/users/:user_id') && method === 'PUT') return { full_name: 'Renamed' };
  if (url.startsWith('/v1/test-helpers') && url.endsWith('/prescriptions')) return prescribeBody();
  return method === 'GET' || method === 'DELETE' ? undefined : {};
}

/** The spec's deletes are idempotent: 200 for any id of the thing deleted (its last path id); there "nothing changed" is the proof. */
const answersAnyId = (route: RouteCatalogEntry, param: string) => route.method === 'DELETE' && idParams(route.url).at(-1) === param;

const idParams = (url: string) => [...url.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!).filter((name) => name !== 'organization_id');

function urlWith(url: string, ids: Record<string, string>): string {
  const drugId = url.includes('/users/:user_id/custom-drugs') ? ids.user_drug_id : ids.catalog_drug_id;
  return url.replace(':organization_id', a.g.organizationId).replace(/:([a-z_]+)/g, (_m, name: string) => (name === 'custom_drug_id' ? drugId! : ids[name]!));
}

describe('the tenancy matrix', () => {
  it("answers 404 and changes nothing for another organization's id under the caller's own path, on every route with ids", async () => {
    const token = await requestToken(t, a.g, undefined, a.g.ownerId);
    const routes = t.app.routeCatalog.filter((route) => route.auth.kind === 'bearer' && idParams(route.url).length > 0);
    expect(routes.length).toBeGreaterThanOrEqual(20);
    for (const route of routes) {
      for (const param of idParams(route.url)) {
        const foreignIds = { ...own, [param]: foreign[param]!, ...(param === 'custom_drug_id' ? { user_drug_id: foreign.user_drug_id!, catalog_drug_id: foreign.catalog_drug_id! } : {}) };
        const body = bodyFor(route);
        const before = await snapshotDatabase(t.deps.database);
        const response = await t.app.inject({
          method: route.method as 'GET',
          url: urlWith(route.url, foreignIds),
          headers: { ...bearer(token, a.g), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        const expected = answersAnyId(route, param) ? 200 : 404;
        expect(response.statusCode, `${route.method} ${route.url} with B's ${param}: ${response.body.slice(0, 200)}`).toBe(expected);
        expect(await snapshotDatabase(t.deps.database)).toEqual(before);
      }
    }
  });
});

describe('the credential routes', () => {
  const call = (url: string, headers: Record<string, string>, body: unknown) =>
    t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const ROUTES = [
    ['/v1/token', { grantType: 'client_credentials', scope: ['read:patient'] }],
    ['/v1/sso', { redirect_path: '/dashboard' }],
  ] as const;

  it.each(ROUTES)('%s refuses wrong secrets, a partner not enabled and a disabled user (401), writing nothing', async (url, body) => {
    const stranger = await givenPartner(t);
    const disabled = await givenUser(t, a.g.organizationId, ['provider']);
    await t.deps.database.updateTable('users').set({ enabled: 0 }).where('id', '=', disabled.user_id).execute();
    const cases: Array<[string, Record<string, string>]> = [
      ['a wrong partner secret', { ...tokenHeaders(a.g), 'x-partner-secret': b.g.partnerSecret }],
      ['a wrong organization secret', { ...tokenHeaders(a.g), 'x-organization-secret': b.g.organizationSecret }],
      ['a partner the organization has not enabled', { ...tokenHeaders(a.g), 'x-partner-id': stranger.partner_id, 'x-partner-secret': stranger.partner_secret }],
      ['a disabled user', tokenHeaders(a.g, disabled.user_id)],
      ["another organization's user", tokenHeaders(a.g, b.g.userId)],
    ];
    for (const [name, headers] of cases) {
      const before = await snapshotDatabase(t.deps.database);
      const response = await call(url, headers, body);
      expect(response.statusCode, `${url}: ${name}`).toBe(401);
      expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    }
    expect((await call(url, tokenHeaders(a.g), body)).statusCode).toBe(200);
  });
});
