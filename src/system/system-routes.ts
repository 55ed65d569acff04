// Liveness, readiness and the OpenAPI document.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../route-module.ts';
import { ERROR_CODES } from '../platform/http/api-error.ts';
import { ErrorEnvelopeSchema } from '../platform/http/envelope.ts';
import { checkReadiness, type SystemContext } from './system-service.ts';

const HealthResponse = Type.Object({ status: Type.String() });

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
    url: '/openapi.json',
    config: { auth: { kind: 'public' } },
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
};
