// The service's logger: pino, one line per request (written by installRequestLog), with
// credentials and patient identifiers redacted wherever they might appear.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';

const SENSITIVE_KEYS = [
  'authorization',
  'x-organization-secret',
  'x-partner-secret',
  'secret',
  'password',
  'accessToken',
  'organization_secret',
  'partner_secret',
  'webhook_secret',
  'ihi_number',
  'medicare_card_number',
  'medicare_irn',
  'dva_file_number',
  'hpii_number',
  'date_of_birth',
  'phone',
  'email',
  'concession_pension_number',
  'entitlement_number',
  'australian_street_address',
  'australian_address',
  'international_address',
];

// Top level and one level down: deeper wildcards make pino's per-request child loggers
// markedly slower, and nothing here logs objects nested deeper than that.
export const REDACT_PATHS = SENSITIVE_KEYS.flatMap((key) => {
  const access = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `["${key}"]`;
  return [access.slice(access.startsWith('.') ? 1 : 0), `*${access}`];
});

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

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
