// Authentication and authorization for every /v1 route, declared in the route's options
// (`config.auth`) and enforced by one hook. A /v1 route that declares nothing stops start-up.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { AccessTokenClaims, AccessTokenVerifier } from '../auth/access-tokens.ts';
import { createRequestPrincipalFinder, type RequestPrincipalRow } from '../auth/auth-store.ts';
import type { Scope } from '../auth/scopes.ts';
import { parseStoredRoles, type Role } from '../users/user-roles.ts';
import { ApiError, AUTH_DETAIL, unauthorized } from './api-error.ts';
import { whenReady, type Awaitable } from './awaitable.ts';
import type { Database } from './database-schema.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { createSecretChecker, type SecretChecker } from './secrets.ts';

export type RouteAuth =
  | { public: true }
  | {
      /** Any one of these scopes is enough. */
      scopes: Scope[];
      /** When set, the token's user must hold one of these roles. */
      roles?: Role[];
      /** Status when the role check fails: 401 (default) or 403. */
      roleFailure?: 401 | 403;
    };

type ProtectedRouteAuth = Exclude<RouteAuth, { public: true }>;

export interface Principal {
  partnerId: string;
  organizationId: string;
  userId: string;
  scopes: Scope[];
  roles: readonly Role[];
  /** When this partner first validated this organization (null: not yet). */
  validatedAt: string | null;
  /** The organization's HPI-O as of this request (null: not configured). */
  organizationHpio: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface RouteCatalogEntry {
  method: string;
  url: string;
  auth: RouteAuth;
}

export interface RouteAuthOptions {
  db: Kysely<Database>;
  verifyToken: AccessTokenVerifier;
  rateLimiter: RateLimiter;
  /** Routes under this prefix must declare auth. */
  apiPrefix: string;
  /** Every /v1 route with its auth, filled as routes register (the security matrix walks it). */
  catalog: RouteCatalogEntry[];
}

/**
 * The token of `Authorization: Bearer <token>` (scheme in any case). Not scanned for inner
 * whitespace, which a regular expression would do over some 900 characters per request: such a
 * token fails verification with the same 401.
 */
function readBearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || header.length < 8 || header.slice(0, 6).toLowerCase() !== 'bearer' || !/\s/.test(header[6]!)) {
    throw unauthorized(AUTH_DETAIL.token);
  }
  const token = header.slice(7).trim();
  if (token === '') throw unauthorized(AUTH_DETAIL.token);
  return token;
}

function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', `Too many requests; retry after ${retryAfterSeconds} seconds`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/** Per (partner, organization) budget, 429 once spent; /v1/token counts against the pair it names. */
export function enforceRateLimit(limiter: RateLimiter, partnerId: string, organizationId: string): Awaitable<void> {
  return whenReady(limiter.hit(`${partnerId}:${organizationId}`), (decision) => {
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  });
}

type PrincipalFinder = ReturnType<typeof createRequestPrincipalFinder>;

interface Authenticator {
  options: RouteAuthOptions;
  findPrincipal: PrincipalFinder;
  secretMatches: SecretChecker;
  /** Each stored roles column parsed once (the principal rows are cached and shared). */
  rolesOf: WeakMap<object, readonly Role[]>;
}

/**
 * Sets request.principal or throws the spec's error. With the token, the principal row and
 * the rate limit all known already (the usual case), it finishes without a promise.
 */
function authenticate(request: FastifyRequest, auth: ProtectedRouteAuth, authenticator: Authenticator): Awaitable<void> {
  const { options } = authenticator;
  return whenReady(options.verifyToken(readBearer(request)), (claims) =>
    whenReady(authenticator.findPrincipal(claims), (row) => {
      request.principal = authorize(request, auth, authenticator, claims, row);
      return enforceRateLimit(options.rateLimiter, claims.partnerId, claims.organizationId);
    }),
  );
}

function authorize(
  request: FastifyRequest,
  auth: ProtectedRouteAuth,
  authenticator: Authenticator,
  claims: AccessTokenClaims,
  row: Readonly<RequestPrincipalRow> | undefined,
): Principal {
  const { secretMatches } = authenticator;
  if (!row || row.user_enabled !== 1) throw unauthorized(AUTH_DETAIL.token);
  const secret = request.headers['x-organization-secret'];
  if (typeof secret !== 'string' || !secretMatches(secret, row.organization_secret_hash)) {
    throw unauthorized(AUTH_DETAIL.credentials);
  }
  const params = request.params as Record<string, string | undefined>;
  if (params.organization_id !== undefined && params.organization_id.toLowerCase() !== claims.organizationId) {
    throw unauthorized(AUTH_DETAIL.credentials);
  }
  if (!auth.scopes.some((scope) => claims.scopes.includes(scope))) throw unauthorized(AUTH_DETAIL.scope);
  const roles = storedRolesOf(authenticator, row);
  if (auth.roles && !auth.roles.some((role) => roles.includes(role))) {
    throw auth.roleFailure === 403
      ? new ApiError('FORBIDDEN', 'Insufficient permissions')
      : unauthorized('Insufficient permissions');
  }
  // Field by field, not `{ ...claims, roles, ... }`: on Node 20 each property after a spread
  // costs about half a microsecond, and this runs on every request.
  return {
    partnerId: claims.partnerId,
    organizationId: claims.organizationId,
    userId: claims.userId,
    scopes: claims.scopes,
    roles,
    validatedAt: row.validated_at,
    organizationHpio: row.organization_hpio,
  };
}

function storedRolesOf(authenticator: Authenticator, row: Readonly<RequestPrincipalRow>): readonly Role[] {
  let roles = authenticator.rolesOf.get(row);
  if (!roles) {
    roles = Object.freeze(parseStoredRoles(row.user_roles));
    authenticator.rolesOf.set(row, roles);
  }
  return roles;
}

/** Shows the credentials and scopes a route needs in the OpenAPI document. */
function documentAuth(schema: Record<string, unknown> | undefined, auth: { scopes: Scope[]; roles?: Role[] }): void {
  if (!schema) return;
  schema.security = [{ bearerAuth: [], organizationSecret: [] }];
  const roles = auth.roles ? `; the token's user must be ${auth.roles.join(' or ')}` : '';
  schema.description = [schema.description, `Scope: ${auth.scopes.join(' or ')}${roles}.`].filter(Boolean).join('\n\n');
}

export function installRouteAuth(app: FastifyInstance, options: RouteAuthOptions): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(options.apiPrefix)) return;
    const auth = route.config?.auth;
    if (!auth) throw new Error(`route ${String(route.method)} ${route.url} declares no auth (config.auth)`);
    if (!('public' in auth)) documentAuth(route.schema as Record<string, unknown> | undefined, auth);
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') options.catalog.push({ method, url: route.url, auth });
    }
  });
  const authenticator: Authenticator = {
    options,
    findPrincipal: createRequestPrincipalFinder(options.db),
    secretMatches: createSecretChecker(),
    rolesOf: new WeakMap(),
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const auth = request.routeOptions.config.auth;
    if (!auth || 'public' in auth) return done();
    let pending: Awaitable<void>;
    try {
      pending = authenticate(request, auth, authenticator);
    } catch (error) {
      return done(error as Error);
    }
    if (pending instanceof Promise) pending.then(() => done(), done);
    else done();
  });
}

/** The authenticated principal of a route that declared scopes. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf called on a route without authentication');
  return request.principal;
}
