// Authenticating a bearer request: the token (signature, expiry), the principal it names still
// valid, the organization secret, the path organization, scope and role, then the pair's rate
// limit. Runs on every bearer request, so the usual case finishes without a promise.
import { ApiError, AUTH_DETAIL, unauthorized } from '../platform/http/api-error.ts';
import { whenReady, type Awaitable } from '../platform/awaitable.ts';
import type { AccessTokenClaims } from './access-tokens.ts';
import { enforceRateLimit, previousSecretAccepted, type AuthContext, type Principal } from './auth-service.ts';
import { findRequestPrincipal, type RequestPrincipalRow } from './auth-store.ts';
import { holdsCapability, type Capability } from './capabilities.ts';
import type { Scope } from './scopes.ts';
import { parseStoredRoles, type Role } from './user-roles.ts';

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
