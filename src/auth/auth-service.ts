// What /v1/token and /validate do: check the five credentials (failures counted apart from the
// pair's budget, credential-failures.ts; each refusal in the audit trail, credential-audit.ts)
// and grant the requested scopes the organization allows; record a partner's validation of an
// organization. Authenticating a bearer request is bearer-auth.ts.
import type { Kysely } from 'kysely';
import { auditRecords, type AuditTrail, type SecurityAlerts } from '../audit/index.ts';
import { ApiError, AUTH_DETAIL, unauthorized } from '../platform/http/api-error.ts';
import { whenReady, type Awaitable } from '../platform/awaitable.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import type { RateLimiter, RateLimitRule } from '../platform/http/rate-limiter.ts';
import { isUuid } from '../platform/ids.ts';
import { NO_METRICS, type Metrics, type RateLimitKind } from '../platform/metrics/metrics.ts';
import { createSecretChecker, secretMatchesHash, type SecretChecker } from '../platform/secrets.ts';
import type { Deps } from '../deps.ts';
import { createAccessTokenVerifier, signAccessToken, type AccessTokenVerifier } from './access-tokens.ts';
import { claimedIdsOf, readTokenHeaders, type TokenHeaders } from './credential-headers.ts';
export { missingCredentialHeaders, pairOfCredentialHeaders, readTokenHeaders, TOKEN_HEADERS, type TokenHeaders } from './credential-headers.ts';
import { claimedIdsCanBeValid, findFailureLockout, recordCredentialFailure, type ClaimedIds } from './credential-failures.ts';
import { findTokenCredentials, markIntegrationValidated, type PreviousSecret } from './auth-store.ts';
import { canonicalScope, requestableScopes, type Scope } from './scopes.ts';
import { noteCredentialRefusal, type CredentialEndpoint } from './credential-audit.ts';
import type { SigningKeys } from '../platform/signing-keys.ts';
import type { Role } from './user-roles.ts';

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
  audit: AuditTrail;
  /** The first validation of an organization commits through it, with its entry. */
  unitOfWork: UnitOfWork;
  /** Where credential refusals are counted, apart from the audit chain (credential-audit.ts). */
  securityAlerts: SecurityAlerts;
}

export function createAuthContext(deps: Pick<Deps, 'database' | 'keys' | 'clock' | 'config' | 'rateLimiter' | 'metrics'>, features: { audit: AuditTrail; unitOfWork: UnitOfWork; securityAlerts: SecurityAlerts }): AuthContext {
  return {
    audit: features.audit,
    unitOfWork: features.unitOfWork,
    securityAlerts: features.securityAlerts,
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
  organizationHpio: string | null;
}

/** One attempt at the five credentials: their headers, where from, and which endpoint. */
export interface CredentialAttempt {
  headers: TokenHeaders;
  address: string;
  endpoint: CredentialEndpoint;
}

/**
 * Whether `presented` is the current secret, or the one the last rotation replaced while its
 * overlap lasts: rotating lets callers switch over, and the old secret stops at the overlap's
 * end whatever any cache holds, because the expiry is compared with the clock on every check.
 */
export function secretAccepted(matches: SecretChecker, presented: string, currentHash: string, previous: PreviousSecret | null, now: Date): boolean {
  return matches(presented, currentHash) || (previous !== null && previousSecretAccepted(matches, presented, previous, now));
}

export function previousSecretAccepted(matches: SecretChecker, presented: string, previous: PreviousSecret, now: Date): boolean {
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
  return { ...ids, allowedScopes: JSON.parse(row.allowed_scopes ?? '[]') as string[], organizationHpio: row.organization_hpio };
}

/**
 * Before a credential check: ids that cannot be valid answer the same 401 as wrong secrets
 * (`refusedDetail`), counted nowhere; 429 while this address is locked out for the claimed pair.
 * Either refusal is recorded in the audit trail.
 */
export async function screenCredentialAttempt(ctx: AuthContext, attempt: CredentialAttempt, refusedDetail: string = AUTH_DETAIL.credentials): Promise<void> {
  const ids = claimedIdsOf(attempt.headers);
  if (!claimedIdsCanBeValid(ids)) {
    await noteCredentialRefusal(ctx, attempt.endpoint, ids, 'ids_malformed');
    throw unauthorized(refusedDetail);
  }
  const lockout = await findFailureLockout(ctx.rateLimiter, ids, attempt.address);
  if (lockout) {
    await noteCredentialRefusal(ctx, attempt.endpoint, ids, 'locked_out');
    throw rateLimited(ctx, 'credential_failures', lockout.retryAfterSeconds);
  }
}

/**
 * The credential check of /v1/token and /v1/sso, after screenCredentialAttempt: a failure
 * counts against the address and the claimed pair (credential-failures.ts), never against
 * the pair's budget; only a success spends that budget (429 once spent).
 */
export async function checkCredentialAttempt(ctx: AuthContext, attempt: CredentialAttempt): Promise<CheckedCredentials | undefined> {
  const checked = await checkCredentials(ctx, attempt.headers);
  if (!checked) {
    const ids = claimedIdsOf(attempt.headers);
    await recordCredentialFailure(ctx.rateLimiter, ids, attempt.address);
    await noteCredentialRefusal(ctx, attempt.endpoint, ids, 'credentials_invalid');
    return undefined;
  }
  await enforceRateLimit(ctx, checked.partnerId, checked.organizationId);
  return checked;
}

/** POST /v1/token: the token, and an auth.token_issued entry naming its user and how many scopes it carries. */
export async function issueAccessToken(ctx: AuthContext, headers: TokenHeaders, requested: string[], address: string): Promise<IssuedToken> {
  const checked = await checkCredentialAttempt(ctx, { headers, address, endpoint: '/v1/token' });
  if (!checked) throw unauthorized(AUTH_DETAIL.credentials);
  const allowed = new Set(checked.allowedScopes);
  const granted = [...new Set(requested.map(canonicalScope))].filter(
    (s): s is Scope => s !== undefined && allowed.has(s) && ctx.requestableScopes.has(s),
  );
  const ids = { partnerId: checked.partnerId, organizationId: checked.organizationId, userId: checked.userId };
  const actor = { kind: 'user' as const, ...ids };
  const accessToken = await signAccessToken(Object.assign(ids, { scopes: granted }), ctx.keys, ctx.clock, ctx.tokenTtlSeconds);
  await ctx.audit.noteAccess({ action: 'auth.token_issued', actor, hpio: checked.organizationHpio, detail: { count: granted.length } });
  return { accessToken, expiresIn: ctx.tokenTtlSeconds, tokenType: 'Bearer', scope: granted };
}

/** The token as RFC 6749 (section 5.1) names it, for OAuth tooling that reads the top level. */
export function oauthFieldsOf(token: IssuedToken): { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } {
  return { access_token: token.accessToken, token_type: token.tokenType, expires_in: token.expiresIn, scope: token.scope.join(' ') };
}

/**
 * The first validation of an organization by a partner is what webhooks wait for: it commits
 * with its auth.integration_validated entry. Later calls confirm it and change nothing; they
 * leave no entry, as a write for each would make this, the cheapest authenticated call, some
 * fifteen times slower (the bench's validate row), and the token they carry has its own entry.
 */
export function validateIntegration(ctx: AuthContext, principal: Principal): Awaitable<{ validated: true }> {
  // Later calls answer without a promise: while a request's audit scope is open, each promise
  // costs the process's async hooks as well (BENCHMARKS.md, "Request paths").
  if (principal.validatedAt !== null) return { validated: true };
  return ctx.unitOfWork
    .run(async ({ trx, record }) => {
      if (await markIntegrationValidated(trx, principal, ctx.clock.now().toISOString())) record(auditRecords, { action: 'auth.integration_validated' });
    })
    .then(() => ({ validated: true }));
}

/** The public keys that verify access tokens (JWKS). */
export function publicKeysOf(ctx: AuthContext): SigningKeys['jwks'] {
  return ctx.keys.jwks;
}

export function rateLimited(ctx: AuthContext, kind: RateLimitKind, retryAfterSeconds: number): ApiError {
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
