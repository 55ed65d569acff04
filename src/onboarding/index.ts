// The face of the onboarding feature: the operator's partners, organizations and users, and the
// sandbox seed. Code outside src/onboarding/ (other features, app.ts, cli/, scripts/) imports
// only this file; its own files import each other directly. test/architecture/imports.test.ts
// holds it.
export {
  createOnboardingContext,
  createOrganization,
  createPartner,
  enablePartnerForOrganization,
  type OnboardingContext,
  OnboardingError,
  setPartnerFrameOrigins,
} from './onboarding-service.ts';
export { createUser, showUser } from './operator-users.ts';
export { describeMissingPractice, missingPracticeParts, type OrganizationPractice, readOrganizationPractice, setOrganizationPractice } from './organization-practice.ts';
export {
  DEFAULT_OVERLAP_HOURS,
  disablePartnerForOrganization,
  revokePortalSessions,
  rotateOrganizationSecret,
  rotatePartnerSecret,
} from './credential-lifecycle.ts';
export { describeSandboxSeed, isDatabaseEmpty, seedSandbox } from './sandbox-seed.ts';
