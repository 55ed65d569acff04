// The face of the users feature: the user routes, the reads other features build on, the
// operator's user tools. Code outside src/users/ (other features, app.ts, cli/, scripts/)
// imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export { type CallerOrganization, createUsersContext, findStoredUser, insertOperatorUser, isEmailTaken, listReadyPrescribers, newUserRow, type PrescriberProfile, readPrescriberProfile, requireOrganizationUser, type UsersContext } from './users-service.ts';
export { remedyOf } from './escript-readiness.ts';
export { updateUser } from './provider-update.ts';
export { userRoutes } from './users-routes.ts';
export { checkHiConnection, HiCheckInputError, type HiCheckInput, type HiCheckResult } from './hi-connection-check.ts';
