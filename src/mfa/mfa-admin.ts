// Lost factors and the organization's policy: an owner or admin resets another user's factors
// from the portal (with a fresh factor of their own: a step-up page), an operator does it with
// `erx user reset-mfa`, and `erx org set-mfa` sets whether the organization requires MFA. A
// reset deletes the user's factors, recovery codes and counted wrong codes, ends their portal
// sessions, and notes the reset so they are told at their next sign-in.
import { auditRecords } from '../audit/index.ts';
import { parseStoredRoles } from '../auth/index.ts';
import type { MfaPolicy } from '../platform/db/stored-values.ts';
import { MFA_POLICIES } from '../platform/db/stored-values.ts';
import { endPortalSessionsOf, type PortalSession } from '../sso/index.ts';
import type { MfaContext } from './mfa-service.ts';
import { deleteEverythingMfaOf, findMfaUser, listUsersWithFactorCounts, setUserMfaResetAt, updateOrganizationMfaPolicy } from './mfa-store.ts';

/** A command's refusal (unknown organization or user, bad policy), printed as it is. */
export class MfaError extends Error {
  override name = 'MfaError';
}

export function readMfaPolicy(text: string): MfaPolicy {
  const policy = MFA_POLICIES.find((p) => p === text);
  if (!policy) throw new MfaError(`the MFA policy must be ${MFA_POLICIES.join(' or ')}, got "${text}"`);
  return policy;
}

/** `erx org set-mfa <org> required|optional`. */
export async function setOrganizationMfaPolicy(ctx: MfaContext, organizationId: string, policyText: string): Promise<{ organization_id: string; mfa: MfaPolicy }> {
  const policy = readMfaPolicy(policyText);
  const set = await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (!(await updateOrganizationMfaPolicy(trx, organizationId, policy))) return false;
    record(auditRecords, { action: 'admin.organization_mfa', organizationId, detail: { reason: policy } });
    return true;
  });
  if (!set) throw new MfaError(`organization ${organizationId} not found`);
  return { organization_id: organizationId, mfa: policy };
}

export interface ResetOutcome {
  organization_id: string;
  user_id: string;
  factors_removed: number;
  sessions_ended: number;
}

async function resetFactors(ctx: MfaContext, organizationId: string, userId: string): Promise<ResetOutcome | undefined> {
  const target = { organizationId, userId };
  if (!(await findMfaUser(ctx.db, target))) return undefined;
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    const removed = await deleteEverythingMfaOf(trx, target);
    await setUserMfaResetAt(trx, target, ctx.clock.now().toISOString());
    const sessions = await endPortalSessionsOf(trx, target);
    record(auditRecords, { action: 'mfa.reset', organizationId, targetUserId: userId, detail: { count: removed } });
    return { organization_id: organizationId, user_id: userId, factors_removed: removed, sessions_ended: sessions };
  });
}

/** `erx user reset-mfa <org> <user>`. */
export async function resetUserMfaAsOperator(ctx: MfaContext, organizationId: string, userId: string): Promise<ResetOutcome> {
  const reset = await resetFactors(ctx, organizationId, userId);
  if (!reset) throw new MfaError(`user ${userId} not found in organization ${organizationId}`);
  return reset;
}

export type PortalResetOutcome = { kind: 'reset'; outcome: ResetOutcome } | { kind: 'not_found' } | { kind: 'self' };

/** An owner or admin resets another user of their organization (the page declares the capability and the step-up). */
export async function resetUserMfaFromPortal(ctx: MfaContext, session: PortalSession, userId: string): Promise<PortalResetOutcome> {
  if (userId === session.userId) return { kind: 'self' };
  const reset = await resetFactors(ctx, session.organizationId, userId);
  return reset ? { kind: 'reset', outcome: reset } : { kind: 'not_found' };
}

export interface MfaUserView {
  userId: string;
  name: string;
  email: string;
  roles: string[];
  enabled: boolean;
  factors: number;
  self: boolean;
}

/** The organization's users and whether each is enrolled: the reset page's list. */
export async function listOrganizationMfa(ctx: MfaContext, session: PortalSession): Promise<MfaUserView[]> {
  const rows = await listUsersWithFactorCounts(ctx.db, session.organizationId);
  return rows.map((row) => ({
    userId: row.id,
    name: row.full_name,
    email: row.email,
    roles: [...parseStoredRoles(row.roles)],
    enabled: row.enabled === 1,
    factors: row.factors,
    self: row.id === session.userId,
  }));
}
