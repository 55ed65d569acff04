// The face of the sso feature: the SSO route, sign-in and portal sessions. Code outside src/sso/
// (other features, app.ts, cli/, bench/, test/) imports only this file; its own files import each
// other directly. test/architecture/imports.test.ts holds it.
export {
  createSsoContext,
  endPortalSessionsOf,
  endSignInsThroughPartner,
  EXPIRED_TOKENS_KEPT_SECONDS,
  SESSION_MAX_AGE_SECONDS,
  type SignInRefusal,
  signInWithSsoToken,
  type SsoContext,
} from './sso-service.ts';
export { endPortalSession, findLivePortalSession, notePortalFactorPresented, type PortalSession } from './portal-sessions.ts';
export { ssoRoutes } from './sso-routes.ts';
export { createSsoRetentionSteps } from './sso-retention.ts';
