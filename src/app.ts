// buildApp(deps, features): the whole HTTP surface, not yet listening. Two encapsulated
// contexts, each with the full list of its route modules, each bound to what it serves: the JSON
// API under the base path (the spec's envelopes, bearer tokens) and the prescribing portal (HTML
// pages, sessions).
// Each refuses at start-up a route that declares no auth or a kind it does not serve. Around
// them: request ids and the one log line per request, the error envelope for anything that
// matches no route or fails before routing, and the OpenAPI document and its page.
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installAuditScope } from './audit/index.ts';
import { authRoutes, installBearerAuth, installPartnerAuth, requireDeclaredAuth, requireEveryRouteCataloged, type RouteCatalogEntry } from './auth/index.ts';
import { customDrugRoutes } from './custom-drugs/index.ts';
import type { Config } from './config.ts';
import type { Features } from './features.ts';
import { installIdempotencyKeys } from './idempotency/index.ts';
import { patientsRoutes } from './patients/index.ts';
import { prescriptionTestHelpersRoutes, prescriptionsRoutes, tokenPageRoutes } from './prescriptions/index.ts';
import { createClientErrorHandler, createFrameworkErrorHandler, installErrorHandling } from './platform/http/error-handler.ts';
import { installJsonBodyParser } from './platform/http/json-body.ts';
import { lazySchemaCompilers } from './platform/http/lazy-schema-compilers.ts';
import { createLazyChildLogger } from './platform/http/lazy-request-logger.ts';
import { describeOpenApi } from './platform/http/openapi.ts';
import { describeWebhooksForOpenApi, eventFeedRoutes, partnerWebhookRoutes } from './webhooks/index.ts';
import { installRequestLog } from './platform/http/request-log.ts';
import { installRequestMetrics } from './platform/metrics/http-request-metrics.ts';
import { NO_METRICS } from './platform/metrics/metrics.ts';
import { docsContentSecurityPolicy, installNosniff } from './platform/http/security-headers.ts';
import { installDocsPage } from './platform/http/docs-page.ts';
import { installSuccessReply } from './platform/http/success-reply.ts';
import { installRequestTracing } from './platform/telemetry/request-tracing.ts';
import { newRequestId } from './platform/ids.ts';
import { approvalPages, dashboardPages, installPortal, medicineSearchPages, mfaPages, mfaResetPages, prescriptionPages, signInPages } from './portal/index.ts';
import type { App } from './route-module.ts';
import type { Deps } from './deps.ts';
import { ssoRoutes } from './sso/index.ts';
import { systemRoutes } from './system/index.ts';
import { userRoutes } from './users/index.ts';

/** A route module bound to what it serves; tests add their own to prove what a context refuses. */
export type Mount = (app: App, features: Features, config: Config) => void;

/** A module whose routes exist only in sandbox mode; in production they are never registered, so they answer 404. */
function sandboxOnly(mount: Mount): Mount {
  return (app, features, config) => {
    if (config.mode === 'sandbox') mount(app, features, config);
  };
}

/** The JSON API, under the base path. */
export const API_ROUTE_MODULES: Mount[] = [
  (app, { system }) => systemRoutes(app, system),
  (app, { auth }, config) => authRoutes(app, { auth, config }),
  (app, { patients }) => patientsRoutes(app, patients),
  (app, { customDrugs }, config) => customDrugRoutes(app, { customDrugs, config }),
  (app, { webhooks }) => partnerWebhookRoutes(app, webhooks),
  (app, { webhooks }) => eventFeedRoutes(app, webhooks),
  (app, { users }) => userRoutes(app, users),
  (app, { prescriptions }) => prescriptionsRoutes(app, prescriptions),
  sandboxOnly((app, { prescriptions }) => prescriptionTestHelpersRoutes(app, prescriptions)),
  (app, { sso }) => ssoRoutes(app, sso),
];

/** The prescribing portal (HTML), at the root. */
export const PORTAL_ROUTE_MODULES: Mount[] = [
  (app, { sso }, config) => signInPages(app, { sso, config }),
  (app, { portal }) => dashboardPages(app, portal),
  (app, { portal }) => prescriptionPages(app, portal),
  (app, { portal }) => medicineSearchPages(app, portal),
  (app, { portal }) => approvalPages(app, portal),
  (app, { mfa }) => mfaPages(app, mfa),
  (app, { mfa }) => mfaResetPages(app, mfa),
  (app, { prescriptions }) => tokenPageRoutes(app, prescriptions),
];

/** The route modules of each context. */
export interface Surfaces {
  api: Mount[];
  portal: Mount[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the API and the portal, and the auth it declared. */
    routeCatalog: RouteCatalogEntry[];
  }
}

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export async function buildApp(
  deps: Deps,
  features: Features,
  surfaces: Surfaces = { api: API_ROUTE_MODULES, portal: PORTAL_ROUTE_MODULES },
): Promise<App> {
  const { config } = deps;
  const errorRendering = { clock: deps.clock, errorsBase: config.errorsBase };
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // installRequestLog writes the one line per request; Fastify's own two lines are off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    childLoggerFactory: createLazyChildLogger,
    genReqId: newRequestId,
    // request.ip, which per-address limits count: the proxies' X-Forwarded-For only when configured.
    // (A hop count as Fastify applies it at run time; its types take only a function for that.)
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // allowUnionTypes: a count may be sent as a number or a string of digits (type [integer, string]).
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, allowUnionTypes: true } },
    // Each route's schemas compiled on its first request: compiling them all was half of a start.
    schemaController: { compilersFactory: lazySchemaCompilers() },
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: createFrameworkErrorHandler(errorRendering),
    clientErrorHandler: createClientErrorHandler({
      ...errorRendering,
      newRequestId,
      log: (line) => deps.logger.info(line, 'request refused before routing'),
    }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First, so a request's span covers every other hook (nothing is installed when traces are off).
  if (deps.tracing?.tracer) installRequestTracing(app, deps.tracing.tracer);
  // JSON only: any other body type is a 415, not a string that fails validation later.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  const catalog: RouteCatalogEntry[] = [];
  app.decorate('routeCatalog', catalog);
  // Each route's auth comes from hooks of the two contexts below; one added anywhere else (but
  // the docs' pages) would have none, so the app refuses to start with it.
  const docsPrefix = `${config.basePath}/docs`;
  requireEveryRouteCataloged(app, catalog, (url) => url === docsPrefix || url.startsWith(`${docsPrefix}/`));
  // First: every later hook, handler and service runs in the request's audit scope.
  installAuditScope(app, features.audit);
  installRequestLog(app, deps.logger);
  installRequestMetrics(app, deps.metrics ?? NO_METRICS);
  installErrorHandling(app, errorRendering);
  installSuccessReply(app, deps.clock);
  installNosniff(app);
  await app.register(swagger, describeOpenApi(config, describeWebhooksForOpenApi(features.webhooks.eventTypes)));
  installDocsPage(app, { prefix: docsPrefix, openApiUrl: `${config.basePath}/openapi.json`, contentSecurityPolicy: docsContentSecurityPolicy(config.publicUrl) });

  await app.register(
    async (api) => {
      requireDeclaredAuth(api, ['public', 'bearer', 'partner'], catalog);
      installBearerAuth(api, features.auth);
      installPartnerAuth(api, features.auth);
      installIdempotencyKeys(api, features.idempotency);
      for (const register of surfaces.api) register(api as unknown as App, features, config);
    },
    { prefix: config.basePath },
  );
  await app.register(async (portal) => {
    requireDeclaredAuth(portal, ['public', 'session'], catalog);
    await installPortal(portal, { config, sso: features.sso, mfa: features.mfa, logger: deps.logger, securityAlerts: features.securityAlerts });
    for (const register of surfaces.portal) register(portal as unknown as App, features, config);
  });
  return app as unknown as App;
}
