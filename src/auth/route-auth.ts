// What a route declares about who may call it (`config.auth`), and the hooks that enforce it.
// Every route of a context must declare one of the kinds that context serves, or start-up
// stops: the JSON API serves public and bearer-token routes, the portal public and session
// routes.
import { identifyAuditActor } from '../audit/index.ts';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { rolesWith, type Capability } from './capabilities.ts';
import { whenReady, type Awaitable } from '../platform/awaitable.ts';
import type { AuthContext, Principal } from './auth-service.ts';
import { authenticateBearer, type BearerRequirement } from './bearer-auth.ts';
import { authenticatePartner } from './partner-auth.ts';

export type RouteAuth =
  /** Anyone: the token call, health, public keys, the portal's SSO landing. */
  | { kind: 'public' }
  /** `Authorization: Bearer` with `x-organization-secret`, checked against scopes and roles. */
  | ({ kind: 'bearer' } & BearerRequirement)
  /**
   * A portal session cookie; with a capability, the session's user must hold it (else a 403 page).
   * `factor`: by default the session must have passed the MFA gate (enrolled where the
   * organization requires it, and presented their factor in this session); `fresh` asks for a
   * factor presented within 5 minutes (a step-up); `exempt` is for the MFA pages themselves and
   * signing out. `json`: the route answers JSON, so a session that has not passed the gate gets
   * a 401 rather than the factor page. `instead`: a session without the capability but with
   * `instead.capability` is sent (303) to the page `instead.to` names rather than refused (a
   * queue manager following a partner's link to the new-prescription form lands on the draft form).
   */
  | { kind: 'session'; capability?: Capability; factor?: 'fresh' | 'exempt'; json?: true; instead?: SessionRedirect }
  /** The partner's own credentials (`x-partner-id`, `x-partner-secret`): the /v1/partner/ self-service routes. */
  | { kind: 'partner' };

/** Where a page sends a session holding another capability than its own (see `instead` above). */
export interface SessionRedirect {
  capability: Capability;
  /** The page's address for the request: its path and query. */
  to: (request: FastifyRequest) => string;
}

export type RouteAuthKind = RouteAuth['kind'];

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The partner a `partner` route's credentials authenticated. */
    partnerId: string | null;
  }
}

export interface RouteCatalogEntry {
  method: string;
  url: string;
  auth: RouteAuth;
}

/** Shows the credentials and scopes a route needs in the OpenAPI document. */
function documentAuth(schema: Record<string, unknown> | undefined, auth: BearerRequirement): void {
  if (!schema) return;
  schema.security = [{ bearerAuth: [], organizationSecret: [] }];
  const self = auth.orSelf ? ', or be the path\'s user' : '';
  const roles = auth.capability ? `; the token's user must be ${rolesWith(auth.capability).join(' or ')}${self}` : '';
  schema.description = [schema.description, `Scope: ${auth.scopes.join(' or ')}${roles}.`].filter(Boolean).join('\n\n');
}

/**
 * Refuses, at start-up, any route of this context that declares no auth or a kind the context
 * does not serve; records the others in `catalog` (the security matrix walks it).
 */
export function requireDeclaredAuth(app: FastifyInstance, kinds: readonly RouteAuthKind[], catalog: RouteCatalogEntry[]): void {
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth || !kinds.includes(auth.kind)) {
      const declared = auth ? `auth kind "${auth.kind}"` : 'no auth (config.auth)';
      throw new Error(`route ${String(route.method)} ${route.url} declares ${declared}; this context serves ${kinds.join(', ')}`);
    }
    if (auth.kind === 'bearer') documentAuth(route.schema as Record<string, unknown> | undefined, auth);
    if (auth.kind === 'partner' && route.schema) (route.schema as Record<string, unknown>).security = [{ partnerId: [], partnerSecret: [] }];
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') catalog.push({ method, url: route.url, auth });
    }
  });
}

/**
 * Refuses to start when a route was added outside the contexts that catalog their routes (and
 * whose hooks give each route its auth) without declaring itself public: no hook there checks a
 * token, a partner or a session, so such a route would be open whatever it meant to ask. Routes
 * `isExempt` names (the API docs' own) are the exception. Install on the root, before any route.
 */
export function requireEveryRouteCataloged(app: FastifyInstance, catalog: readonly RouteCatalogEntry[], isExempt: (url: string) => boolean): void {
  const added: string[] = [];
  app.addHook('onRoute', (route) => {
    if (isExempt(route.url) || route.config?.auth?.kind === 'public') return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') added.push(`${method} ${route.url}`);
  });
  app.addHook('onReady', (done) => {
    const cataloged = new Set(catalog.map((entry) => `${entry.method} ${entry.url}`));
    const stray = added.filter((route) => !cataloged.has(route));
    done(stray.length > 0 ? new Error(`routes outside the API and portal contexts carry no auth check (declare them in a context, or as public): ${stray.join(', ')}`) : undefined);
  });
}

/** Appends `hook` to the route's own onRequest hooks. */
function addRouteOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  route.onRequest = route.onRequest === undefined ? [hook] : [...[route.onRequest].flat(), hook];
}

/**
 * The bearer check of every bearer route: sets request.principal or fails with the spec's
 * error. With the token, the principal row and the rate limit all known already (the usual
 * case), it finishes without a promise. Each bearer route gets its own hook, made when the
 * route is added with its requirement: reading `request.routeOptions` per request builds a
 * fresh object in Fastify 5, and routes of other kinds pay nothing.
 */
export function installBearerAuth(app: FastifyInstance, auth: AuthContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const declared = route.config?.auth;
    if (declared?.kind !== 'bearer') return;
    addRouteOnRequest(route, (request, _reply, done) => {
      let pending: Awaitable<void>;
      try {
        pending = whenReady(authenticateBearer(auth, credentialsOf(request), declared), (principal) => {
          request.principal = principal;
          identifyAuditActor({ kind: 'user', partnerId: principal.partnerId, organizationId: principal.organizationId, userId: principal.userId }, principal.organizationHpio);
        });
      } catch (error) {
        return done(error as Error);
      }
      if (pending instanceof Promise) pending.then(() => done(), done);
      else done();
    });
  });
}

/** The partner check of every `partner` route (its own hook, as above): sets request.partnerId or fails with the spec's 401 (429 when locked out). */
export function installPartnerAuth(app: FastifyInstance, auth: AuthContext): void {
  app.decorateRequest('partnerId', null);
  app.addHook('onRoute', (route) => {
    if (route.config?.auth?.kind !== 'partner') return;
    addRouteOnRequest(route, (request, _reply, done) => {
      authenticatePartner(auth, request.headers, request.ip).then((partnerId) => {
        request.partnerId = partnerId;
        identifyAuditActor({ kind: 'partner', partnerId });
        done();
      }, done);
    });
  });
}

/** The authenticated partner of a `partner` route. */
export function partnerOf(request: FastifyRequest): string {
  if (!request.partnerId) throw new Error('partnerOf called on a route without partner authentication');
  return request.partnerId;
}

function credentialsOf(request: FastifyRequest) {
  const secret = request.headers['x-organization-secret'];
  const params = request.params as Record<string, string | undefined>;
  return {
    authorization: request.headers.authorization,
    organizationSecret: typeof secret === 'string' ? secret : undefined,
    pathOrganizationId: params.organization_id,
    pathUserId: params.user_id,
  };
}

/** The authenticated principal of a bearer route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf called on a route without bearer authentication');
  return request.principal;
}
