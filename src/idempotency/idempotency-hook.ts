// The Idempotency-Key header on the routes that declare `config.idempotent`: claimed once the
// request is authenticated and its body parsed, and settled with the response just before it
// is sent (so a retry never finds a first request that answered but left no response).
import type { FastifyInstance } from 'fastify';
import { claimIdempotencyKey, IDEMPOTENCY_HEADER, settleIdempotencyKey, type IdempotencyClaim, type IdempotencyContext } from './idempotency-service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A create that accepts the Idempotency-Key header. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyClaim: IdempotencyClaim | null;
  }
}

/** Shows the header in the OpenAPI document of each route that accepts it. */
function documentHeader(schema: Record<string, unknown> | undefined): void {
  if (!schema) return;
  const note = 'Send an `Idempotency-Key` header (e.g. a UUID) to retry safely: the same key with the same request within 24 hours answers the first response again, without a second resource.';
  schema.description = [schema.description, note].filter(Boolean).join('\n\n');
}

export function installIdempotencyKeys(app: FastifyInstance, idempotency: IdempotencyContext): void {
  app.decorateRequest('idempotencyClaim', null);
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent) documentHeader(route.schema as Record<string, unknown> | undefined);
  });
  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.idempotent) return;
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined || !request.principal) return;
    const claim = await claimIdempotencyKey(idempotency, request.principal, String(key), { method: request.method, url: request.url, body: request.body });
    if (claim.kind === 'replay') {
      return reply.code(claim.status).header('content-type', 'application/json; charset=utf-8').header('idempotent-replayed', 'true').send(claim.body);
    }
    request.idempotencyClaim = claim;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    await settleIdempotencyKey(idempotency, claim, reply.statusCode, typeof payload === 'string' ? payload : String(payload));
    return payload;
  });
}
