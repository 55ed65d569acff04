// The Idempotency-Key header on the routes that declare `config.idempotent`: claimed once the
// request is authenticated and its body parsed, and settled with the response just before it
// is sent (so a retry never finds a first request that answered but left no response). A
// retry answered with the first response is recorded in the audit trail (idempotency-replay-audit.ts).
import type { FastifyInstance, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { noteIdempotentReplay, type IdempotentCreate } from './idempotency-replay-audit.ts';
import { claimIdempotencyKey, IDEMPOTENCY_HEADER, settleIdempotencyKey, type IdempotencyClaim, type IdempotencyContext } from './idempotency-service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A create that accepts the Idempotency-Key header, and names what it made for a replay's audit entry. */
    idempotent?: IdempotentCreate;
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

/** Claims the key before the handler runs; a retry of a finished request is answered here. */
function createClaimHook(idempotency: IdempotencyContext): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined || !request.principal) return;
    const claim = await claimIdempotencyKey(idempotency, request.principal, String(key), { method: request.method, url: request.url, body: request.body });
    if (claim.kind === 'replay') {
      // The first answer shown again is a read of what it made: recorded before it leaves.
      await noteIdempotentReplay(idempotency.audit, request, claim);
      return reply.code(claim.status).header('content-type', 'application/json; charset=utf-8').header('idempotent-replayed', 'true').send(claim.body);
    }
    request.idempotencyClaim = claim;
  };
}

/** Keeps the response of the request that claimed the key, before it leaves. */
function createSettleHook(idempotency: IdempotencyContext): onSendAsyncHookHandler {
  return async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    await settleIdempotencyKey(idempotency, claim, reply.statusCode, typeof payload === 'string' ? payload : String(payload));
    return payload;
  };
}

/** Gives the routes that declare `config.idempotent` their two hooks; every other route pays nothing. */
export function installIdempotencyKeys(app: FastifyInstance, idempotency: IdempotencyContext): void {
  app.decorateRequest('idempotencyClaim', null);
  const claim = createClaimHook(idempotency);
  const settle = createSettleHook(idempotency);
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    documentHeader(route.schema as Record<string, unknown> | undefined);
    route.preHandler = [...[route.preHandler ?? []].flat(), claim];
    route.onSend = [...[route.onSend ?? []].flat(), settle];
  });
}
