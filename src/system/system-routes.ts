// Liveness, readiness and the OpenAPI document.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { RouteModule } from '../app-deps.ts';
import { ApiError, ERROR_CODES } from '../platform/api-error.ts';
import { ErrorEnvelopeSchema } from '../platform/envelope.ts';

const HealthResponse = Type.Object({ status: Type.String() });

export const systemRoutes: RouteModule = (app, deps) => {
  app.get('/health', { schema: { summary: 'Liveness', tags: ['system'], response: { 200: HealthResponse } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/ready',
    {
      schema: {
        summary: 'Readiness: the database answers',
        tags: ['system'],
        response: { 200: HealthResponse, [ERROR_CODES.SERVICE_UNAVAILABLE.status]: ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      try {
        await sql`select 1`.execute(deps.database.db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw new ApiError('SERVICE_UNAVAILABLE', 'The database is not reachable');
      }
      return { status: 'ready' };
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
