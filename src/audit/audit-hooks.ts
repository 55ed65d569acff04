// Every request runs in an audit scope (audit-scope.ts), opened before any other hook: anonymous
// until the bearer check or the portal session names who acts. A request that may change
// something (any method but GET and HEAD) defers its reads and HI lookups: they wait in the
// scope, ride in the transaction of a change it commits, and the rest are written before the
// answer leaves; if they cannot be, the answer is replaced by the error (fail closed: nothing
// is read that the trail does not show). A GET writes its one read as it notes it, so GET routes
// carry no onSend hook (any onSend hook costs every response of its route: BENCHMARKS.md).
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { currentAuditScope, runInAuditScope } from './audit-scope.ts';
import type { AuditTrail } from './audit-trail.ts';

const WRITES_AT_ONCE = new Set(['GET', 'HEAD']);
const ANONYMOUS = Object.freeze({ kind: 'anonymous' as const });
const WRITTEN_AT_ONCE = { deferred: false };
const DEFERRED = { deferred: true };

export function installAuditScope(app: FastifyInstance, trail: AuditTrail): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const facts = { actor: ANONYMOUS, hpio: null, requestId: request.id, clientAddress: request.ip };
    runInAuditScope(facts, done, WRITES_AT_ONCE.has(request.method) ? WRITTEN_AT_ONCE : DEFERRED);
  });
  const flush: onSendHookHandler = (_request, _reply, payload, done) => {
    const scope = currentAuditScope();
    if (!scope || scope.pending.length === 0) return done(null, payload);
    trail.flushPending(scope).then(() => done(null, payload), done);
  };
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => WRITES_AT_ONCE.has(method))) return;
    route.onSend = [route.onSend ?? []].flat().concat(flush);
  });
}
