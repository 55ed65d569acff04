// The face of the mfa feature: prescriber MFA in the portal (passkeys, TOTP, recovery codes),
// the gate every session page passes, the step-up, resets and the organization's policy. Code
// outside src/mfa/ imports only this file.
//
// A later action that needs a fresh factor (signing a controlled medicine, say) either declares
// it on its page, `config: { auth: { kind: 'session', capability, factor: 'fresh' } }`, or, when
// only some posts of a page need it, calls `await requireFreshFactor(mfa, sessionOf(request))`
// in its handler or service before acting: it throws FactorRequired, which the portal answers
// with the factor page, returning the user to the page they posted from.
export {
  createMfaContext,
  factorGateOf,
  FactorRequired,
  FACTOR_PRESENTED_SECONDS,
  FRESH_FACTOR_SECONDS,
  LOCK_AFTER_FAILURES,
  LOCK_SECONDS,
  LOCK_WINDOW_SECONDS,
  factorsOf,
  lockedUntil,
  policyOf,
  requireFreshFactor,
  sessionMayManageFactors,
  stepUpGateOf,
  userHoldsFactor,
  verifyRecoveryCode,
  verifyTotpCode,
  type CodeOutcome,
  type FactorGate,
  type MfaContext,
} from './mfa-service.ts';
export {
  beginTotpEnrolment,
  confirmTotpEnrolment,
  FACTOR_NAME_MAX,
  issueFirstRecoveryCodes,
  readEnrolPage,
  readFactorPage,
  readFactorsPage,
  type EnrolPage,
  type PresentPage,
  RECOVERY_CODE_COUNT,
  regenerateRecoveryCodes,
  removeFactor,
  type EnrolOutcome,
  type FactorsPage,
  type TotpEnrolment,
} from './mfa-enrolment.ts';
export { passkeyAuthenticationOptions, passkeyRegistrationOptions, verifyPasskeyAuthentication, verifyPasskeyRegistration, type PasskeyOutcome } from './passkeys.ts';
export { listOrganizationMfa, MfaError, resetUserMfaAsOperator, resetUserMfaFromPortal, setOrganizationMfaPolicy, type MfaUserView, type PortalResetOutcome } from './mfa-admin.ts';
export { createMfaRetentionSteps } from './mfa-retention.ts';
