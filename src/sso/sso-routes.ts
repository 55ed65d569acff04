// POST /v1/sso: a partner's server mints a single sign-on link into the prescribing portal for
// one of the organization's users. No bearer token: the five credential headers of /v1/token
// are checked by the service, like /v1/token does.
import { submittedBody } from '../platform/http/body-validation.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import type { RouteModule } from '../route-module.ts';
import { pairOfCredentialHeaders, TokenHeadersSchema } from '../auth/index.ts';
import { SsoBody, SsoResponse } from './sso-schemas.ts';
import { mintSsoToken, type SsoContext } from './sso-service.ts';

export const ssoRoutes: RouteModule<SsoContext> = (app, sso) => {
  app.route({
    method: 'POST',
    url: '/v1/sso',
    config: { auth: { kind: 'public' } },
    attachValidation: true,
    // A redirect_path is at most 2 KB; 32 KB as the prescription routes take.
    bodyLimit: 32 * 1024,
    schema: {
      summary: 'Mint a single sign-on link into the prescribing portal',
      description:
        'Headers as for /v1/token (x-partner-id, x-partner-secret, x-organization-id, x-organization-secret, x-user-id); a missing one is a 400 naming every missing header, wrong credentials (or a partner the organization has not enabled, or a user outside it or disabled) a 401 `Invalid partner credentials`. The token works once, within 300 seconds.',
      tags: ['sso'],
      headers: TokenHeadersSchema,
      body: SsoBody,
      response: { 200: SsoResponse, ...errorResponses(415, 422) },
    },
    handler: async (request, reply) => {
      const minted = await mintSsoToken(sso, request.headers, submittedBody(request), request.ip);
      request.authenticatedIds = pairOfCredentialHeaders(request.headers);
      return reply.success(200, 'SSO token generated successfully', minted);
    },
  });
};
