// The face of the mfa feature: prescriber MFA in the portal (passkeys, TOTP, recovery codes),
// the gate every session page passes, the step-up, resets and the organization's policy. Code
// outside src/mfa/ imports only this file.
//
// A later action that needs a fresh factor (signing a controlled medicine, say) either declares
// it on its page, `config: { auth: { kind: 'session', capability, factor: 'fresh' } }`, or, when
// only some posts of a page need it, calls `await requireFreshFactor(mfa, sessionOf(request))`
// in its handler or service before acting: it throws FactorRequired, which the portal answers
// with the factor page, returning the user to the page they posted from.
export { createMfaContext, factorGateOf, FactorRequired, stepUpGateOf, userHoldsFactor, verifyRecoveryCode, verifyTotpCode, type CodeOutcome, type MfaContext } from './mfa-service.ts';
export { confirmTotpEnrolment, FACTOR_NAME_MAX, issueFirstRecoveryCodes, readEnrolPage, readFactorPage, readFactorsPage, regenerateRecoveryCodes, removeFactor } from './mfa-enrolment.ts';
export { passkeyAuthenticationOptions, passkeyRegistrationOptions, verifyPasskeyAuthentication, verifyPasskeyRegistration } from './passkeys.ts';
export { listOrganizationMfa, MfaError, resetUserMfaAsOperator, resetUserMfaFromPortal, setOrganizationMfaPolicy } from './mfa-admin.ts';
export { createMfaRetentionSteps } from './mfa-retention.ts';
