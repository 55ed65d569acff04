// Every answered request into http_server_request_duration_seconds, labelled with its route's
// template (`/v1/organizations/:organization_id/validate`, never the path itself). Installed only
// when metrics are on: with them off no hook runs at all.
//
// Each route gets its own onResponse hook, made when the route is added, that already knows the
// template: reading `request.routeOptions.url` per request builds a fresh object of ten fields
// in Fastify 5, which costs more than the whole recording. One root hook catches what matched no
// route (`request.is404` is a plain field lookup).
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { Metrics } from './metrics.ts';

export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  if (!metrics.enabled) return;
  app.addHook('onRoute', (route) => {
    const template = route.url;
    // Callback-style (no promise per request); elapsedTime is Fastify's own clock of the request, in ms.
    const record: onResponseHookHandler = (request, reply, done) => {
      metrics.recordHttpRequest(request.method, template, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = route.onResponse === undefined ? [record] : [...[route.onResponse].flat(), record];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) metrics.recordHttpRequest(request.method, undefined, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
