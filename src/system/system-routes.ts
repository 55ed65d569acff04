// Liveness, readiness and the OpenAPI document.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../route-module.ts';
import { ERROR_CODES } from '../platform/http/api-error.ts';
import { ErrorEnvelopeSchema } from '../platform/http/envelope.ts';
import { checkReadiness, reportReadiness, type SystemContext } from './system-service.ts';

const HealthResponse = Type.Object({ status: Type.String() });

// Check names and ok/failing only: the probe is public, so no address, error or stack.
const ReadinessResponse = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unready')]),
  checks: Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('failing')])),
});

export const systemRoutes: RouteModule<SystemContext> = (app, system) => {
  app.route({
    method: 'GET',
    url: '/health',
    config: { auth: { kind: 'public' } },
    schema: { summary: 'Liveness', tags: ['system'], response: { 200: HealthResponse } },
    handler: async () => ({ status: 'ok' }),
  });

  app.route({
    method: 'GET',
    url: '/livez',
    config: { auth: { kind: 'public' } },
    schema: { summary: 'Liveness: the process answers (no dependency is checked)', tags: ['system'], response: { 200: HealthResponse } },
    handler: async () => ({ status: 'ok' }),
  });

  app.route({
    method: 'GET',
    url: '/ready',
    config: { auth: { kind: 'public' } },
    schema: {
      summary: 'Readiness: the database answers',
      tags: ['system'],
      response: { 200: HealthResponse, [ERROR_CODES.SERVICE_UNAVAILABLE.status]: ErrorEnvelopeSchema },
    },
    handler: async (request) => checkReadiness(system, (error) => request.log.warn({ err: error }, 'readiness check failed')),
  });

  app.route({
    method: 'GET',
    url: '/readyz',
    config: { auth: { kind: 'public' } },
    schema: {
      summary: 'Readiness: every dependency, by name (database, migrations, Redis when used, the webhook dispatcher when this process runs it)',
      tags: ['system'],
      response: { 200: ReadinessResponse, 503: ReadinessResponse },
    },
    handler: async (_request, reply) => {
      const report = await reportReadiness(system);
      return reply.code(report.status === 'ready' ? 200 : 503).send(report);
    },
  });

  app.route({
    method: 'GET',
    url: '/openapi.json',
    config: { auth: { kind: 'public' } },
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
};
