// Every answered request into http_server_request_duration_seconds, labelled with its route's
// template (`/v1/organizations/:organization_id/validate`, never the path itself). Installed only
// when metrics are on: with them off no hook runs at all.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  if (!metrics.enabled) return;
  // A callback-style hook (no promise per request); elapsedTime is Fastify's own clock of the request, in ms.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.recordHttpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
