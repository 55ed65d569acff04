import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { SCOPES } from '../../src/auth/index.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { bearer, givenIntegration, givenUser, tokenHeaders, type GivenIntegration } from '../given.ts';
import { createUser } from '../../src/onboarding/index.ts';

let t: TestApp;
let g: GivenIntegration;

beforeAll(async () => {
  t = await createTestApp();
  g = await givenIntegration(t, { scopes: ['create:patient', 'read:user', 'read:users'] });
});
afterAll(() => t.close());

const post = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/v1/token', headers, payload: payload as object });
const body = (scope: string[]) => ({ grantType: 'client_credentials', scope });

describe('POST /v1/token', () => {
  it('issues an RS256 bearer token with the requested scopes the organization allows', async () => {
    const response = await post(tokenHeaders(g), body(['create:patient', 'update:user']));
    expect(response.statusCode).toBe(200);
    const envelope = response.json();
    expect(envelope).toMatchObject({ success: true, statusCode: 200, code: 'SUCCESS', requestId: response.headers['x-request-id'] });
    expect(envelope.data).toEqual({ accessToken: expect.any(String), expiresIn: 3600, tokenType: 'Bearer', scope: ['create:patient'] });
    expect(decodeProtectedHeader(envelope.data.accessToken)).toMatchObject({ alg: 'RS256', kid: t.deps.keys.kid });
    const claims = decodeJwt(envelope.data.accessToken);
    expect(claims).toMatchObject({ organization_id: g.organizationId, partner_id: g.partnerId, user_id: g.userId, scope: ['create:patient'] });
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('also answers the RFC 6749 fields at the top level, which OAuth clients and the vendor collection read', async () => {
    const response = await post(tokenHeaders(g), body(['create:patient', 'read:users', 'read:user']));
    const envelope = response.json();
    expect(envelope).toMatchObject({
      access_token: envelope.data.accessToken,
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'create:patient read:users read:user',
    });
    expect(envelope.data.scope).toEqual(['create:patient', 'read:users', 'read:user']);
  });

  it('accepts READ_USER as an alias of read:users', async () => {
    const response = await post(tokenHeaders(g), body(['READ_USER']));
    expect(response.json().data.scope).toEqual(['read:users']);
  });

  it.each(['x-partner-id', 'x-partner-secret', 'x-organization-id', 'x-organization-secret', 'x-user-id'])(
    'names a missing %s header with 400',
    async (header) => {
      const headers = tokenHeaders(g);
      delete headers[header];
      const response = await post(headers, body(['create:patient']));
      expect(response.statusCode).toBe(400);
      expect(response.json().error.detail).toBe(`Missing required header: ${header}`);
    },
  );

  it.each([
    ['a wrong partner secret', { 'x-partner-secret': 'nope' }],
    ['an unknown partner', { 'x-partner-id': 'no-such-partner' }],
    ['a wrong organization secret', { 'x-organization-secret': 'nope' }],
    ['an unknown organization', { 'x-organization-id': '7d8a2f4e-1111-4a4a-8a8a-000000000000' }],
    ['an organization id that is not a UUID', { 'x-organization-id': 'clinic' }],
  ])('rejects %s with 401 Invalid client credentials', async (_name, override) => {
    const response = await post({ ...tokenHeaders(g), ...override }, body(['create:patient']));
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toMatchObject({
      type: 'https://api.erx.example/errors/authentication-required',
      detail: 'Invalid client credentials',
    });
  });

  it('rejects a user of another organization and a disabled user with 401', async () => {
    const other = await givenIntegration(t);
    const outsider = await post(tokenHeaders(g, other.userId), body(['create:patient']));
    expect(outsider.statusCode).toBe(401);
    const disabled = await givenUser(t, g.organizationId);
    await t.deps.database.updateTable('users').set({ enabled: 0 }).where('id', '=', disabled.user_id).execute();
    expect((await post(tokenHeaders(g, disabled.user_id), body(['create:patient']))).statusCode).toBe(401);
  });

  it('rejects a partner the organization has not enabled with 401', async () => {
    const other = await givenIntegration(t);
    const response = await post({ ...tokenHeaders(g), 'x-partner-id': other.partnerId, 'x-partner-secret': other.partnerSecret }, body(['create:patient']));
    expect(response.statusCode).toBe(401);
  });

  it('rejects an unknown scope with 422 listing the allowed values', async () => {
    const response = await post(tokenHeaders(g), body(['create:patient', 'delete:everything']));
    expect(response.statusCode).toBe(422);
    const [issue] = response.json().error.validation;
    expect(issue.field).toBe('scope[1]');
    for (const scope of SCOPES) expect(issue.message).toContain(scope);
  });

  it('rejects an unknown grant type with 422 listing client_credentials', async () => {
    const response = await post(tokenHeaders(g), { grantType: 'password', scope: ['create:patient'] });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation).toEqual([
      { field: 'grantType', message: 'must be one of: client_credentials', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('reports every body failure together', async () => {
    const response = await post(tokenHeaders(g), {});
    expect(response.statusCode).toBe(422);
    expect(response.json().error.validation.map((i: { field: string }) => i.field).sort()).toEqual(['grantType', 'scope']);
  });

  it('accepts upper-case UUIDs in the id headers', async () => {
    const user = await createUser(t.features.onboarding, {
      organizationId: g.organizationId,
      email: 'Case.Test@Example.test',
      givenName: 'Case',
      familyName: 'Test',
      roles: ['provider'],
    });
    const response = await post({ ...tokenHeaders(g, user.user_id.toUpperCase()) }, body(['create:patient']));
    expect(response.statusCode).toBe(200);
  });
});

describe('the audience of access tokens', () => {
  /** A token like the real ones (same key, issuer, claims), with the audience given or none. */
  async function tokenWithAudience(audience: string | undefined): Promise<string> {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const jwt = new SignJWT({ organization_id: g.organizationId, partner_id: g.partnerId, user_id: g.userId, scope: ['create:patient'] })
      .setProtectedHeader({ alg: 'RS256', kid: t.deps.keys.kid, typ: 'JWT' })
      .setIssuer('erx')
      .setSubject(g.userId)
      .setIssuedAt(now)
      .setExpirationTime(now + 600);
    return (audience === undefined ? jwt : jwt.setAudience(audience)).sign(t.deps.keys.privateKey);
  }
  const validate = (token: string) =>
    t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });

  it('is erx-partner-api on every issued token, and such a token is accepted', async () => {
    const response = await post(tokenHeaders(g), body(['read:user']));
    expect(decodeJwt(response.json().data.accessToken).aud).toBe('erx-partner-api');
    const accepted = await validate(await tokenWithAudience('erx-partner-api'));
    expect(accepted.statusCode, accepted.body).toBe(200);
  });

  it.each([
    ['no audience', undefined],
    ['another audience', 'https://other-service.example'],
  ])('is required: a token with %s is a 401', async (_name, audience) => {
    const response = await validate(await tokenWithAudience(audience));
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toMatchObject({ type: expect.stringMatching(/\/authentication-required$/), detail: 'Valid authentication token is required' });
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public key that verifies tokens, without private parts', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    const { keys } = response.json();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', kid: t.deps.keys.kid, alg: 'RS256', use: 'sig' });
    expect(keys[0].d).toBeUndefined();
  });
});
