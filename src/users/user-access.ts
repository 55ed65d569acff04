// Who a user is allowed to be: replacing roles, and the user state table (disable, enable).
// Sign-in itself is the identity provider's (identity-provider.ts); the roles are ours.
// Each change commits with its audit entry (user.roles_change, user.disable, user.enable); a
// disable refused to keep the organization manageable leaves one with outcome 'refused'.
import type { Kysely } from 'kysely';
import { auditRecords } from '../audit/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError } from '../platform/http/api-error.ts';
import { BASELINE_ROLES, isAssignableRole, parseStoredRoles, PLATFORM_KEPT_ROLES, type Role } from '../auth/index.ts';
import type { SubmittedBody } from '../platform/http/body-validation.ts';
import { readRequestedRoles, ROLES_NOT_AN_ARRAY } from './users-input.ts';
import { requireUser, type CallerOrganization, type UsersContext } from './users-service.ts';
import { hasOtherEnabledOwner, lockOrganizationOwners, updateUserOfOrganization } from './users-store.ts';

export const NO_VALID_ROLE = 'access_roles must contain at least one valid role after filtering';

/** The spec's messages of the user state table, and of enable (its mirror). */
export const STATE_MESSAGES = {
  disabled: 'User disabled successfully',
  alreadyDisabled: 'User is already disabled',
  enabled: 'User enabled successfully',
  alreadyEnabled: 'User is already enabled',
} as const;

/**
 * Replaces the assignable roles. Entries that are not assignable roles are dropped first; none
 * left is a 400. Roles the platform gave (owner, support) are kept: the API can neither give
 * nor take them.
 */
export async function replaceRoles(
  ctx: UsersContext,
  { organizationId }: CallerOrganization,
  pathUserId: string,
  body: SubmittedBody,
): Promise<{ user_id: string; access_roles: Role[] }> {
  const user = await requireUser(ctx, organizationId, pathUserId);
  const requested = readRequestedRoles(body);
  if (requested.length === 0) throw new ApiError('INVALID_USER_PARAMETERS', ROLES_NOT_AN_ARRAY);
  const assigned = [...new Set(requested.filter(isAssignableRole))];
  if (assigned.length === 0) throw new ApiError('INVALID_USER_PARAMETERS', NO_VALID_ROLE);
  const kept = parseStoredRoles(user.roles).filter((role) => (PLATFORM_KEPT_ROLES as readonly Role[]).includes(role));
  const roles: Role[] = [...kept, ...assigned];
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await updateUserOfOrganization(trx, organizationId, user.id, { roles: JSON.stringify(roles), updated_at: ctx.clock.now().toISOString() });
    record(auditRecords, { action: 'user.roles_change', targetUserId: user.id, detail: { roles } });
  });
  return { user_id: user.id, access_roles: roles };
}

type StateChange = 'disable' | 'enable';

/** A disable refused (409): noted with outcome 'refused' and which rule refused it, then thrown. */
async function refuseStateChange(ctx: UsersContext, targetUserId: string, reason: 'self' | 'last_owner', refusal: ApiError): Promise<never> {
  await ctx.audit.noteAccess({ action: 'user.disable', outcome: 'refused', targetUserId, detail: { reason: `CONFLICT: ${reason}` } });
  throw refusal;
}

export const LOCK_OUT_DETAILS = {
  self: 'You cannot disable yourself; ask another owner or admin of the organization',
  lastOwner: 'This user is the last enabled owner of the organization; nobody could manage it after disabling them',
} as const;

/** The platform's roles (owner, support) survive disable and enable; everything else becomes the baseline. */
function rolesAfterStateChange(stored: string): Role[] {
  const kept = parseStoredRoles(stored).filter((role) => (PLATFORM_KEPT_ROLES as readonly Role[]).includes(role));
  return [...kept, ...BASELINE_ROLES];
}

/**
 * Nobody locks an organization out: not by disabling the last enabled owner (409). Runs inside
 * the change's transaction, after the organization's lock, so two owners disabled at the same
 * moment cannot each count the other as the one left.
 */
async function refuseLastOwner(trx: Kysely<Database>, organizationId: string, user: { id: string; roles: string }): Promise<void> {
  if (!parseStoredRoles(user.roles).includes('owner')) return;
  await lockOrganizationOwners(trx, organizationId);
  if (!(await hasOtherEnabledOwner(trx, organizationId, user.id))) throw new ApiError('CONFLICT', LOCK_OUT_DETAILS.lastOwner);
}

/**
 * Disable: roles down to member (owner and support kept) and sign-in disabled. Enable: sign-in
 * restored, roles the same way. Either is idempotent: a user already in the target state is
 * left unchanged.
 */
export async function changeUserState(
  ctx: UsersContext,
  caller: CallerOrganization & { userId: string },
  pathUserId: string,
  change: StateChange,
): Promise<{ user_id: string; message: string }> {
  const { organizationId } = caller;
  const user = await requireUser(ctx, organizationId, pathUserId);
  const target = change === 'disable' ? 0 : 1;
  if (user.enabled === target) {
    return { user_id: user.id, message: change === 'disable' ? STATE_MESSAGES.alreadyDisabled : STATE_MESSAGES.alreadyEnabled };
  }
  // Nobody disables themselves (409): no other change can race this one.
  if (change === 'disable' && user.id === caller.userId) await refuseStateChange(ctx, user.id, 'self', new ApiError('CONFLICT', LOCK_OUT_DETAILS.self));
  const roles = rolesAfterStateChange(user.roles);
  await ctx.unitOfWork
    .run(async ({ trx, record }) => {
      if (change === 'disable') await refuseLastOwner(trx, organizationId, user);
      const at = ctx.clock.now().toISOString();
      await updateUserOfOrganization(trx, organizationId, user.id, { roles: JSON.stringify(roles), updated_at: at });
      const account = { db: trx, organizationId, userId: user.id, email: user.email };
      // Last, so an identity provider that fails rolls the role change back.
      await (change === 'disable' ? ctx.identityProvider.disableUser(account) : ctx.identityProvider.enableUser(account));
      record(auditRecords, { action: change === 'disable' ? 'user.disable' : 'user.enable', targetUserId: user.id, detail: { roles } });
    })
    .catch((error: unknown) => (error instanceof ApiError && error.code === 'CONFLICT' ? refuseStateChange(ctx, user.id, 'last_owner', error) : Promise.reject(error)));
  return { user_id: user.id, message: change === 'disable' ? STATE_MESSAGES.disabled : STATE_MESSAGES.enabled };
}
