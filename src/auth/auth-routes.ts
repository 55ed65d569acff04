// POST /v1/token, GET /v1/organizations/{organization_id}/validate, and the public keys.
import type { RouteModule } from '../route-module.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import { principalOf } from './route-auth.ts';
import { JwksResponse, OrganizationParams, TokenHeadersSchema, tokenRequestSchema, TokenResponse, ValidateResponse } from './auth-schemas.ts';
import type { Config } from '../config.ts';
import { issueAccessToken, oauthFieldsOf, pairOfCredentialHeaders, publicKeysOf, readTokenHeaders, screenCredentialAttempt, validateIntegration, type AuthContext } from './auth-service.ts';

export const authRoutes: RouteModule<{ auth: AuthContext; config: Config }> = (app, { auth, config }) => {
  app.route({
    method: 'POST',
    url: '/v1/token',
    config: { auth: { kind: 'public' } },
    schema: {
      summary: 'Issue an access token',
      tags: ['auth'],
      headers: TokenHeadersSchema,
      body: tokenRequestSchema(config.mode),
      response: { 200: TokenResponse, ...errorResponses(422) },
    },
    // Missing credential headers (400), ids that cannot be valid (401) and an address locked
    // out after failed attempts (429) are reported before the body is validated (422).
    preValidation: async (request) => {
      await screenCredentialAttempt(auth, { headers: readTokenHeaders(request.headers), address: request.ip, endpoint: '/v1/token' });
    },
    handler: async (request, reply) => {
      const token = await issueAccessToken(auth, readTokenHeaders(request.headers), request.body.scope, request.ip);
      request.authenticatedIds = pairOfCredentialHeaders(request.headers);
      return reply.successWith(200, 'Token generated successfully', token, oauthFieldsOf(token));
    },
  });

  app.route({
    method: 'GET',
    url: '/v1/organizations/:organization_id/validate',
    config: { auth: { kind: 'bearer', scopes: ['create:patient'] } },
    schema: {
      summary: 'Validate the integration of this partner with an organization',
      tags: ['auth'],
      params: OrganizationParams,
      response: { 200: ValidateResponse, ...errorResponses() },
    },
    // Not async: the usual call (an organization validated before) answers without a promise.
    handler: (request, reply) => {
      const answer = (data: { validated: true }): void => {
        reply.success(200, 'Successfully validated token', data);
      };
      const data = validateIntegration(auth, principalOf(request));
      if (data instanceof Promise) return data.then(answer);
      answer(data);
    },
  });

  app.route({
    method: 'GET',
    url: '/.well-known/jwks.json',
    config: { auth: { kind: 'public' } },
    schema: { summary: 'Public keys that verify access tokens', tags: ['auth'], response: { 200: JwksResponse } },
    handler: async () => publicKeysOf(auth),
  });
};
