// What /v1/token, /validate and every bearer request do: check the five credentials (failures
// counted apart from the pair's budget, credential-failures.ts) and grant the requested
// scopes the organization allows; authenticate a bearer request (token, the
// organization secret, the path organization, scope, role, rate limit); record a partner's
// validation of an organization.
import type { Kysely } from 'kysely';
import { ApiError, AUTH_DETAIL, unauthorized } from '../platform/http/api-error.ts';
import { whenReady, type Awaitable } from '../platform/awaitable.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { RateLimiter, RateLimitRule } from '../platform/http/rate-limiter.ts';
import { isUuid } from '../platform/ids.ts';
import { NO_METRICS, type Metrics, type RateLimitKind } from '../platform/metrics/metrics.ts';
import { createSecretChecker, secretMatchesHash, type SecretChecker } from '../platform/secrets.ts';
import type { Deps } from '../deps.ts';
import { createAccessTokenVerifier, signAccessToken, type AccessTokenClaims, type AccessTokenVerifier } from './access-tokens.ts';
import { claimedIdsOf, readTokenHeaders, type TokenHeaders } from './credential-headers.ts';
export { missingCredentialHeaders, pairOfCredentialHeaders, readTokenHeaders, TOKEN_HEADERS, type TokenHeaders } from './credential-headers.ts';
import { claimedIdsCanBeValid, findFailureLockout, recordCredentialFailure, type ClaimedIds } from './credential-failures.ts';
import { findRequestPrincipal, findTokenCredentials, markIntegrationValidated, type PreviousSecret, type RequestPrincipalRow } from './auth-store.ts';
import { canonicalScope, requestableScopes, type Scope } from './scopes.ts';
import type { SigningKeys } from '../platform/signing-keys.ts';
import { holdsCapability, type Capability } from './capabilities.ts';
import { parseStoredRoles, type Role } from './user-roles.ts';

export interface AuthContext {
  db: Kysely<Database>;
  keys: SigningKeys;
  clock: Clock;
  tokenTtlSeconds: number;
  /** The scopes a token may carry on this server (sandbox-only scopes not in production). */
  requestableScopes: ReadonlySet<Scope>;
  rateLimiter: RateLimiter;
  /** Counts the 429s, by the limit that refused. */
  metrics: Metrics;
  verifyToken: AccessTokenVerifier;
  secretMatches: SecretChecker;
  /** Each stored roles column parsed once (the principal rows are cached and shared). */
  rolesOf: WeakMap<object, readonly Role[]>;
}

export function createAuthContext(deps: Pick<Deps, 'database' | 'keys' | 'clock' | 'config' | 'rateLimiter' | 'metrics'>): AuthContext {
  return {
    db: deps.database,
    keys: deps.keys,
    clock: deps.clock,
    tokenTtlSeconds: deps.config.tokenTtlSeconds,
    requestableScopes: new Set(requestableScopes(deps.config.mode)),
    rateLimiter: deps.rateLimiter,
    metrics: deps.metrics ?? NO_METRICS,
    verifyToken: createAccessTokenVerifier(deps.keys, deps.clock),
    secretMatches: createSecretChecker(),
    rolesOf: new WeakMap(),
  };
}

/** Who is calling, as one bearer request established it. */
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

/** What a bearer route requires beyond a valid token and organization secret. */
export interface BearerRequirement {
  /** Any one of these scopes is enough. */
  scopes: readonly Scope[];
  /** When set, the token's user must hold this capability (capabilities.ts)... */
  capability?: Capability;
  /** ...or be the path's user_id (a user may update their own details). */
  orSelf?: boolean;
  /** Status when the capability check fails: 401 (default) or 403. */
  roleFailure?: 401 | 403;
}

export interface BearerCredentials {
  authorization: string | undefined;
  organizationSecret: string | undefined;
  /** The path's organization_id, when the route has one. */
  pathOrganizationId: string | undefined;
  /** The path's user_id, when the route has one. */
  pathUserId?: string | undefined;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  tokenType: 'Bearer';
  scope: Scope[];
}

/** Who the five credential headers name, once every one of them checked out. */
export interface CheckedCredentials {
  partnerId: string;
  organizationId: string;
  userId: string;
  /** The scopes the organization allows partners to be granted. */
  allowedScopes: string[];
}

/**
 * Whether `presented` is the current secret, or the one the last rotation replaced while its
 * overlap lasts: rotating lets callers switch over, and the old secret stops at the overlap's
 * end whatever any cache holds, because the expiry is compared with the clock on every check.
 */
function secretAccepted(matches: SecretChecker, presented: string, currentHash: string, previous: PreviousSecret | null, now: Date): boolean {
  return matches(presented, currentHash) || (previous !== null && previousSecretAccepted(matches, presented, previous, now));
}

function previousSecretAccepted(matches: SecretChecker, presented: string, previous: PreviousSecret, now: Date): boolean {
  const { previous_secret_hash: hash, previous_secret_expires_at: expiresAt } = previous;
  return hash !== null && expiresAt !== null && now.toISOString() < expiresAt && matches(presented, hash);
}

/**
 * The five credentials of /v1/token and /v1/sso: both secrets match, the organization has
 * enabled the partner, and the user belongs to it and is enabled. Undefined when any fails;
 * each caller answers that with its own 401.
 */
export async function checkCredentials(ctx: AuthContext, headers: TokenHeaders): Promise<CheckedCredentials | undefined> {
  const ids = {
    partnerId: headers['x-partner-id'],
    organizationId: headers['x-organization-id'].toLowerCase(),
    userId: headers['x-user-id'].toLowerCase(),
  };
  if (!isUuid(ids.organizationId) || !isUuid(ids.userId)) return undefined;
  const row = await findTokenCredentials(ctx.db, ids);
  const now = ctx.clock.now();
  const partnerOk = row.partner_secret_hash !== null && secretAccepted(secretMatchesHash, headers['x-partner-secret'], row.partner_secret_hash, row.partner_previous, now);
  const organizationOk =
    row.organization_secret_hash !== null &&
    secretAccepted(secretMatchesHash, headers['x-organization-secret'], row.organization_secret_hash, row.organization_previous, now);
  if (!partnerOk || !organizationOk || row.partner_enabled !== 1 || row.user_enabled !== 1) return undefined;
  return { ...ids, allowedScopes: JSON.parse(row.allowed_scopes ?? '[]') as string[] };
}

/**
 * Before a credential check: ids that cannot be valid answer the same 401 as wrong secrets
 * (`refusedDetail`), counted nowhere; 429 while this address is locked out for the claimed pair.
 */
export async function screenCredentialAttempt(ctx: AuthContext, headers: TokenHeaders, address: string, refusedDetail: string = AUTH_DETAIL.credentials): Promise<void> {
  const ids = claimedIdsOf(headers);
  if (!claimedIdsCanBeValid(ids)) throw unauthorized(refusedDetail);
  const lockout = await findFailureLockout(ctx.rateLimiter, ids, address);
  if (lockout) throw rateLimited(ctx, 'credential_failures', lockout.retryAfterSeconds);
}

/**
 * The credential check of /v1/token and /v1/sso, after screenCredentialAttempt: a failure
 * counts against the address and the claimed pair (credential-failures.ts), never against
 * the pair's budget; only a success spends that budget (429 once spent).
 */
export async function checkCredentialAttempt(ctx: AuthContext, headers: TokenHeaders, address: string): Promise<CheckedCredentials | undefined> {
  const checked = await checkCredentials(ctx, headers);
  if (!checked) {
    await recordCredentialFailure(ctx.rateLimiter, claimedIdsOf(headers), address);
    return undefined;
  }
  await enforceRateLimit(ctx, checked.partnerId, checked.organizationId);
  return checked;
}

export async function issueAccessToken(ctx: AuthContext, headers: TokenHeaders, requested: string[], address: string): Promise<IssuedToken> {
  const checked = await checkCredentialAttempt(ctx, headers, address);
  if (!checked) throw unauthorized(AUTH_DETAIL.credentials);
  const allowed = new Set(checked.allowedScopes);
  const granted = [...new Set(requested.map(canonicalScope))].filter(
    (s): s is Scope => s !== undefined && allowed.has(s) && ctx.requestableScopes.has(s),
  );
  const ids = { partnerId: checked.partnerId, organizationId: checked.organizationId, userId: checked.userId };
  const accessToken = await signAccessToken(Object.assign(ids, { scopes: granted }), ctx.keys, ctx.clock, ctx.tokenTtlSeconds);
  return { accessToken, expiresIn: ctx.tokenTtlSeconds, tokenType: 'Bearer', scope: granted };
}

/** The token as RFC 6749 (section 5.1) names it, for OAuth tooling that reads the top level. */
export function oauthFieldsOf(token: IssuedToken): { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } {
  return { access_token: token.accessToken, token_type: token.tokenType, expires_in: token.expiresIn, scope: token.scope.join(' ') };
}

export async function validateIntegration(ctx: AuthContext, principal: Principal): Promise<{ validated: true }> {
  // The first validation is what webhooks wait for; later calls confirm it without a write.
  if (principal.validatedAt === null) await markIntegrationValidated(ctx.db, principal, ctx.clock.now().toISOString());
  return { validated: true };
}

/** The public keys that verify access tokens (JWKS). */
export function publicKeysOf(ctx: AuthContext): SigningKeys['jwks'] {
  return ctx.keys.jwks;
}

function rateLimited(ctx: AuthContext, kind: RateLimitKind, retryAfterSeconds: number): ApiError {
  ctx.metrics.recordRateLimitRefusal(kind);
  return new ApiError('RATE_LIMIT_EXCEEDED', `Too many requests; retry after ${retryAfterSeconds} seconds`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/** Per (partner, organization) budget, 429 once spent; /v1/token and /v1/sso spend it once their credentials checked out. */
export function enforceRateLimit(ctx: AuthContext, partnerId: string, organizationId: string): Awaitable<void> {
  return whenReady(ctx.rateLimiter.hit(`${partnerId}:${organizationId}`), (decision) => {
    if (!decision.allowed) throw rateLimited(ctx, 'budget', decision.retryAfterSeconds);
  });
}

/** A public route's budget per client address (`scope` names the route's key space); 429 once spent. */
export function enforceAddressLimit(ctx: AuthContext, scope: string, rule: RateLimitRule, address: string): Awaitable<void> {
  return whenReady(ctx.rateLimiter.hit(`address:${scope}:${address}`, rule), (decision) => {
    if (!decision.allowed) throw rateLimited(ctx, 'portal', decision.retryAfterSeconds);
  });
}

/**
 * The token of `Authorization: Bearer <token>` (scheme in any case). Not scanned for inner
 * whitespace, which a regular expression would do over some 900 characters per request: such a
 * token fails verification with the same 401.
 */
function readBearer(header: string | undefined): string {
  if (typeof header !== 'string' || header.length < 8 || header.slice(0, 6).toLowerCase() !== 'bearer' || !/\s/.test(header[6]!)) {
    throw unauthorized(AUTH_DETAIL.token);
  }
  const token = header.slice(7).trim();
  if (token === '') throw unauthorized(AUTH_DETAIL.token);
  return token;
}

/**
 * Checks, in order: the token (signature, expiry), the principal still valid (user enabled, in
 * the organization, partner enabled there), the organization secret (constant time), the path
 * organization, scope, role; then counts the request against the rate limit.
 */
export function authenticateBearer(ctx: AuthContext, credentials: BearerCredentials, requirement: BearerRequirement): Awaitable<Principal> {
  return whenReady(ctx.verifyToken(readBearer(credentials.authorization)), (claims) =>
    whenReady(findRequestPrincipal(ctx.db, claims), (row) => {
      const principal = authorize(ctx, credentials, requirement, claims, row);
      return whenReady(enforceRateLimit(ctx, claims.partnerId, claims.organizationId), () => principal);
    }),
  );
}

function authorize(
  ctx: AuthContext,
  credentials: BearerCredentials,
  requirement: BearerRequirement,
  claims: AccessTokenClaims,
  row: Readonly<RequestPrincipalRow> | undefined,
): Principal {
  if (!row || row.user_enabled !== 1) throw unauthorized(AUTH_DETAIL.token);
  // A partner disabled and enabled again: the tokens it held before stay ended (`iat` is whole seconds).
  if (claims.issuedAt < Math.floor(Date.parse(row.partner_enabled_at) / 1000)) throw unauthorized(AUTH_DETAIL.token);
  const secret = credentials.organizationSecret;
  if (secret === undefined || !organizationSecretAccepted(ctx, secret, row)) throw unauthorized(AUTH_DETAIL.credentials);
  const pathOrganization = credentials.pathOrganizationId;
  if (pathOrganization !== undefined && pathOrganization.toLowerCase() !== claims.organizationId) {
    throw unauthorized(AUTH_DETAIL.credentials);
  }
  if (!requirement.scopes.some((scope) => claims.scopes.includes(scope))) throw unauthorized(AUTH_DETAIL.scope);
  const roles = storedRolesOf(ctx, row);
  if (requirement.capability && !holdsCapability(roles, requirement.capability) && !isPathUser(requirement, credentials, claims)) {
    throw requirement.roleFailure === 403 ? new ApiError('FORBIDDEN', 'Insufficient permissions') : unauthorized('Insufficient permissions');
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

function organizationSecretAccepted(ctx: AuthContext, secret: string, row: Readonly<RequestPrincipalRow>): boolean {
  // The usual case, the current secret, needs neither the clock nor a second comparison.
  if (ctx.secretMatches(secret, row.organization_secret_hash)) return true;
  if (row.organization_previous_secret_hash === null) return false;
  const previous = { previous_secret_hash: row.organization_previous_secret_hash, previous_secret_expires_at: row.organization_previous_secret_expires_at };
  return previousSecretAccepted(ctx.secretMatches, secret, previous, ctx.clock.now());
}

function isPathUser(requirement: BearerRequirement, credentials: BearerCredentials, claims: AccessTokenClaims): boolean {
  return requirement.orSelf === true && credentials.pathUserId !== undefined && credentials.pathUserId.toLowerCase() === claims.userId;
}

function storedRolesOf(ctx: AuthContext, row: Readonly<RequestPrincipalRow>): readonly Role[] {
  let roles = ctx.rolesOf.get(row);
  if (!roles) {
    roles = Object.freeze(parseStoredRoles(row.user_roles));
    ctx.rolesOf.set(row, roles);
  }
  return roles;
}
