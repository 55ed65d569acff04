// The test helpers and their scope exist only in sandbox mode: in production the routes are
// not registered (404) and sandbox:prescribe is not a scope a token can be asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/index.ts';
import { requestableScopes } from '../../src/auth/scopes.ts';
import { PRESCRIPTION_CHANGES } from '../../src/prescriptions/index.ts';
import { givenIntegration, tokenHeaders, useTestApp } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { givenClinic, prescribeBody, prescriptionsClient, productionEnv } from './prescriptions-given.ts';

const A_SCID = 'A12425GABC1234002M';

describe('in production mode', () => {
  const { t, c } = useTestApp({ env: productionEnv() }, async (t) => ({ c: await givenClinic(t) }));

  it('has no test helper routes: each answers 404 as an unknown route', async () => {
    expect(t.deps.config.mode).toBe('production');
    const api = prescriptionsClient(t, c);
    const responses = [await api.prescribe(prescribeBody()), ...(await Promise.all(PRESCRIPTION_CHANGES.map((action) => api.change(action, A_SCID))))];
    for (const response of responses) {
      expect(response.statusCode).toBe(404);
      expect(response.json().error.detail).toMatch(/^Route POST \/v1\/test-helpers\/.* not found$/);
    }
    expect(t.app.routeCatalog.filter((route) => route.url.startsWith('/v1/test-helpers'))).toEqual([]);
  });

  it('refuses sandbox:prescribe in a token request as an unknown scope (422)', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/token', headers: tokenHeaders(c.g), payload: { grantType: 'client_credentials', scope: ['create:patient', 'sandbox:prescribe'] } });
    expect(response.statusCode).toBe(422);
    const [issue] = response.json().error.validation;
    expect(issue.field).toBe('scope[1]');
    expect(issue.message).not.toContain('sandbox:prescribe');
    expect(issue.message).toContain('read:patient_prescription');
  });

  it('still serves the read calls', async () => {
    const response = await prescriptionsClient(t, c).list();
    expect(response.statusCode).toBe(200);
    expect(response.json().data.prescriptions).toEqual([]);
  });
});

describe('in sandbox mode', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const requestScopes = async (scopes: string[] | undefined) => {
    const g = await givenIntegration(t, { scopes });
    const response = await t.app.inject({ method: 'POST', url: '/v1/token', headers: tokenHeaders(g), payload: { grantType: 'client_credentials', scope: ['sandbox:prescribe', 'read:patient'] } });
    return response.json().data.scope;
  };

  it('grants sandbox:prescribe when the organization allows it (organizations allow every scope unless the operator narrowed them)', async () => {
    expect(requestableScopes('sandbox')).toEqual([...SCOPES]);
    expect(await requestScopes(undefined)).toEqual(['sandbox:prescribe', 'read:patient']);
    expect(await requestScopes(['read:patient'])).toEqual(['read:patient']);
  });
});
