import { describe, expect, it } from 'vitest';
import { bearer, requestToken, useTestApp } from '../given.ts';

const { t, g } = useTestApp({ env: { ERX_BASE_PATH: '/external' } }, (_, { g }) => ({ g }));

describe('API mounted under a path prefix', () => {
  it('serves token and validate under the prefix, as a partner whose base URL ends in /external expects', async () => {
    const token = await requestToken(t, g, ['create:patient']);
    const response = await t.app.inject({ method: 'GET', url: `/external/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({ validated: true });
  });

  it('serves health, docs and the OpenAPI document under the prefix too', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/external/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/external/docs/' })).statusCode).toBe(200);
    const document = (await t.app.inject({ method: 'GET', url: '/external/openapi.json' })).json();
    expect(Object.keys(document.paths)).toContain('/external/v1/token');
  });

  it('does not answer the unprefixed paths', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/v1/token', payload: {} })).statusCode).toBe(404);
  });
});
