// One log line per request, written when the response is done, and the request id echoed as
// a response header.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value.slice(0, 64) : undefined;
}

/** One line per request, and the request id echoed as a response header. */
export function installRequestLog(app: FastifyInstance, logger: Logger): void {
  // Callback-style hooks: these run on every request, and skip the promise an async hook costs.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!logger.isLevelEnabled('info')) return done();
    logger.info(
      {
        requestId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        // Public routes (/v1/token) name the pair in headers; they are ids, not secrets.
        partnerId: request.principal?.partnerId ?? headerValue(request.headers['x-partner-id']),
        organizationId: request.principal?.organizationId ?? headerValue(request.headers['x-organization-id']),
      },
      'request completed',
    );
    done();
  });
}
