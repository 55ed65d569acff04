// The face of the users feature: the user routes, the reads other features build on, the
// operator's user tools. Code outside src/users/ (other features, app.ts, cli/, bench/, test/)
// imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export {
  type CallerOrganization,
  createUsersContext,
  findStoredUser,
  insertOperatorUser,
  isEmailTaken,
  listReadyPrescribers,
  newUserRow,
  type PrescriberProfile,
  readPrescriberProfile,
  readUser,
  requireOrganizationUser,
  type UsersContext,
} from './users-service.ts';
export { remedyOf } from './escript-readiness.ts';
export type { IdentityAccount, IdentityProvider } from './identity-provider.ts';
export { updateUser } from './provider-update.ts';
export { changeUserState, LOCK_OUT_DETAILS } from './user-access.ts';
export { userRoutes } from './users-routes.ts';
export { UNVERIFIED_ANSWERS } from './provider-verification.ts';
export { checkHiConnection, HI_CHECK_USER_ID, HiCheckInputError, type HiCheckInput, type HiCheckResult } from './hi-connection-check.ts';
