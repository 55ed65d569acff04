// One log line per request, written when the response is done, and the request id echoed as
// a response header.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

declare module 'fastify' {
  interface FastifyRequest {
    /** The pair a public route (/v1/token, /v1/sso) authenticated by checking its credentials. */
    authenticatedIds: { partnerId: string; organizationId: string } | null;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value.slice(0, 64) : undefined;
}

/** One line per request, and the request id echoed as a response header. */
export function installRequestLog(app: FastifyInstance, logger: Logger): void {
  // Callback-style hooks: these run on every request, and skip the promise an async hook costs.
  app.decorateRequest('authenticatedIds', null);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!logger.isLevelEnabled('info')) return done();
    const authenticated = request.principal ?? request.authenticatedIds;
    logger.info(
      {
        requestId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        // Only an authenticated principal's ids are the caller's; what the headers of a public
        // route (/v1/token, /v1/sso) name is a claim, logged apart (ids, not secrets).
        // (Undefined fields are left out of the line.)
        partnerId: authenticated?.partnerId,
        organizationId: authenticated?.organizationId,
        claimedPartnerId: authenticated ? undefined : headerValue(request.headers['x-partner-id']),
        claimedOrganizationId: authenticated ? undefined : headerValue(request.headers['x-organization-id']),
      },
      'request completed',
    );
    done();
  });
}
