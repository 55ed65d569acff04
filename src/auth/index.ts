// The face of the auth feature: the token routes, the route-auth declaration and bearer hook,
// scopes and roles. Code outside src/auth/ (other features, app.ts, cli/, scripts/) imports
// only this file; its own files import each other directly. test/architecture/imports.test.ts
// holds it.
export { type AuthContext, checkCredentialAttempt, createAuthContext, enforceAddressLimit, missingCredentialHeaders, pairOfCredentialHeaders, type Principal, readTokenHeaders, screenCredentialAttempt } from './auth-service.ts';
export { type Capability, holdsCapability, needsReadinessFor } from './capabilities.ts';
export { authRoutes } from './auth-routes.ts';
export { OrganizationParams, TokenHeadersSchema } from './auth-schemas.ts';
export { installBearerAuth, installPartnerAuth, partnerOf, principalOf, requireDeclaredAuth, requireEveryRouteCataloged, type RouteCatalogEntry, type SessionRedirect } from './route-auth.ts';
export { isScope, type Scope, SCOPES } from './scopes.ts';
export {
  ASSIGNABLE_ROLES,
  type AssignableRole,
  BASELINE_ROLES,
  holdsAny,
  isAssignableRole,
  isRole,
  parseStoredRoles,
  PLATFORM_KEPT_ROLES,
  PRESCRIBING_ROLE,
  PROVIDER_RECORD_ROLES,
  type Role,
  ROLES,
} from './user-roles.ts';
