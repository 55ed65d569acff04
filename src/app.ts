// buildApp(deps): the whole HTTP surface, not yet listening. Every route module is listed in
// ROUTE_MODULES; the rest is the machinery each request passes through (auth, rate limits,
// envelopes, logs) and the OpenAPI document.
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App, AppDeps, RouteModule } from './app-deps.ts';
import { authRoutes } from './auth/auth-routes.ts';
import { customDrugRoutes } from './custom-drugs/custom-drugs-routes.ts';
import { createAccessTokenVerifier } from './auth/access-tokens.ts';
import { patientsRoutes } from './patients/patients-routes.ts';
import { systemRoutes } from './system/system-routes.ts';
import { userRoutes } from './users/users-routes.ts';
import { installErrorHandling } from './platform/error-handler.ts';
import { newRequestId } from './platform/ids.ts';
import { installRequestLog } from './platform/logger.ts';
import { createLazyChildLogger } from './platform/lazy-request-logger.ts';
import { installRouteAuth, type RouteCatalogEntry } from './platform/route-auth.ts';
import { installSuccessReply } from './platform/success-reply.ts';
import { describeOpenApi } from './platform/openapi.ts';

const ROUTE_MODULES: RouteModule[] = [
  systemRoutes,
  authRoutes,
  patientsRoutes,
  customDrugRoutes,
  userRoutes,
];

declare module 'fastify' {
  interface FastifyInstance {
    /** Every /v1 route and the auth it declared. */
    routeCatalog: RouteCatalogEntry[];
  }
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // installRequestLog writes the one line per request; Fastify's own two lines are off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    childLoggerFactory: createLazyChildLogger,
    genReqId: newRequestId,
    bodyLimit: config.bodyLimitBytes,
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON only: any other body type is a 415, not a string that fails validation later.
  app.removeContentTypeParser('text/plain');
  const catalog: RouteCatalogEntry[] = [];
  app.decorate('routeCatalog', catalog);
  installRequestLog(app, deps.logger);
  installErrorHandling(app, { clock: deps.clock, errorsBase: config.errorsBase });
  installSuccessReply(app, deps.clock);
  installRouteAuth(app, {
    db: deps.database.db,
    verifyToken: createAccessTokenVerifier(deps.keys, deps.clock),
    rateLimiter: deps.rateLimiter,
    apiPrefix: `${config.basePath}/v1/`,
    catalog,
  });
  await app.register(swagger, describeOpenApi(config));
  await app.register(swaggerUi, { routePrefix: `${config.basePath}/docs`, uiConfig: { url: `${config.basePath}/openapi.json` } });

  await app.register(
    async (api) => {
      for (const register of ROUTE_MODULES) register(api as unknown as App, deps);
    },
    { prefix: config.basePath },
  );
  return app as unknown as App;
}
