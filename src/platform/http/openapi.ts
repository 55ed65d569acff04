// The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger.
import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../../config.ts';

/** `webhooks`: OpenAPI 3.1's description of the requests erx sends (one per event type), from the event-type catalogue. */
export function describeOpenApi(config: Config, webhooks: Record<string, unknown> = {}): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'erx partner API',
        version: '1.0.0',
        description:
          'Partner API of the e-prescribing platform. Every /v1 call except /v1/token and /v1/sso needs ' +
          '`Authorization: Bearer <accessToken>` and `x-organization-secret`; the /v1/partner/ self-service calls need ' +
          'the partner\'s own `x-partner-id` and `x-partner-secret`.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          organizationSecret: { type: 'apiKey', in: 'header', name: 'x-organization-secret' },
          partnerId: { type: 'apiKey', in: 'header', name: 'x-partner-id' },
          partnerSecret: { type: 'apiKey', in: 'header', name: 'x-partner-secret' },
        },
      },
      webhooks: webhooks as never,
    },
  };
}
