// Every request runs in an audit scope (audit-scope.ts), opened before any other hook: anonymous
// until the bearer check or the portal session names who acts. Before the answer leaves, the
// request's waiting entries (its reads and HI lookups) are written; if they cannot be, the
// answer is replaced by the error (fail closed: nothing is read that the trail does not show).
import type { FastifyInstance } from 'fastify';
import { currentAuditScope, runInAuditScope } from './audit-scope.ts';
import type { AuditTrail } from './audit-trail.ts';

export function installAuditScope(app: FastifyInstance, trail: AuditTrail): void {
  app.addHook('onRequest', (request, _reply, done) => {
    runInAuditScope({ actor: { kind: 'anonymous' }, hpio: null, requestId: request.id, clientAddress: request.ip }, done);
  });
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const scope = currentAuditScope();
    if (!scope || scope.pending.length === 0) return done(null, payload);
    trail.flushPending(scope).then(() => done(null, payload), done);
  });
}
