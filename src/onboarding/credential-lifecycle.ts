// The operator's remedies after a leak: rotate a partner's or an organization's secret (the old
// one keeps working for an overlap, so callers can switch without downtime), withdraw a
// partner's access to an organization, and end portal sessions. Each takes effect on the next
// request to any instance: every check reads the stored state (see auth-store.ts).
import { auditRecords } from '../audit/index.ts';
import { generateSecret, hashSecret } from '../platform/secrets.ts';
import { endPortalSessionsOf, endSignInsThroughPartner } from '../sso/index.ts';
import { findStoredUser } from '../users/index.ts';
import { OnboardingError, type OnboardingContext } from './onboarding-service.ts';
import { deletePartnerEnablement, findOrganization, findPartner, replaceSecretHash } from './onboarding-store.ts';

export const DEFAULT_OVERLAP_HOURS = 24;
/** A longer overlap would leave a leaked secret working for longer than any switch-over needs. */
export const MAX_OVERLAP_HOURS = 720;

export interface SecretRotated {
  /** The new secret, shown once. */
  secret: string;
  /** Until when the replaced secret is still accepted; null: it stopped at once. */
  previous_secret_valid_until: string | null;
}

async function rotateSecret(
  ctx: OnboardingContext,
  table: 'partners' | 'organizations',
  id: string,
  overlapHours: number,
): Promise<SecretRotated | undefined> {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > MAX_OVERLAP_HOURS) {
    throw new OnboardingError(`the overlap must be a whole number of hours from 0 to ${MAX_OVERLAP_HOURS}, got ${overlapHours}`);
  }
  const secret = generateSecret();
  const validUntil = overlapHours === 0 ? null : new Date(ctx.clock.now().getTime() + overlapHours * 3_600_000).toISOString();
  const found = await ctx.unitOfWork.run(async ({ trx, record }) => {
    const replaced = await replaceSecretHash(trx, table, id, { secretHash: hashSecret(secret), previousExpiresAt: validUntil });
    if (!replaced) return false;
    if (table === 'partners') record(auditRecords, { action: 'admin.partner_rotate_secret', detail: { partnerId: id } });
    else record(auditRecords, { action: 'admin.organization_rotate_secret', organizationId: id });
    return true;
  });
  return found ? { secret, previous_secret_valid_until: validUntil } : undefined;
}

/** A new partner secret, printed once; the old one is accepted for `overlapHours` more (0: stops now). */
export async function rotatePartnerSecret(
  ctx: OnboardingContext,
  partnerId: string,
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<{ partner_id: string; partner_secret: string; previous_secret_valid_until: string | null }> {
  const rotated = await rotateSecret(ctx, 'partners', partnerId, overlapHours);
  if (!rotated) throw new OnboardingError(`partner ${partnerId} not found`);
  return { partner_id: partnerId, partner_secret: rotated.secret, previous_secret_valid_until: rotated.previous_secret_valid_until };
}

/** A new organization secret, printed once; the old one is accepted for `overlapHours` more (0: stops now). */
export async function rotateOrganizationSecret(
  ctx: OnboardingContext,
  organizationId: string,
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<{ organization_id: string; organization_secret: string; previous_secret_valid_until: string | null }> {
  const id = organizationId.toLowerCase();
  const rotated = await rotateSecret(ctx, 'organizations', id, overlapHours);
  if (!rotated) throw new OnboardingError(`organization ${organizationId} not found`);
  return { organization_id: id, organization_secret: rotated.secret, previous_secret_valid_until: rotated.previous_secret_valid_until };
}

export interface PartnerDisabled {
  organization_id: string;
  partner_id: string;
  already_disabled: boolean;
  /** Portal sessions opened through the partner for the organization, now ended. */
  sessions_ended: number;
  /** SSO links the partner minted for the organization that were not yet spent, now refused. */
  sso_links_revoked: number;
}

/**
 * The reverse of enablePartnerForOrganization: the partner's access tokens for the organization
 * stop at once (every bearer request reads the enablement), its unspent SSO links are deleted
 * and the portal sessions opened through it end, all in one transaction.
 */
export async function disablePartnerForOrganization(ctx: OnboardingContext, input: { organizationId: string; partnerId: string }): Promise<PartnerDisabled> {
  const organizationId = input.organizationId.toLowerCase();
  if (!(await findOrganization(ctx.db, organizationId))) throw new OnboardingError(`organization ${input.organizationId} not found`);
  if (!(await findPartner(ctx.db, input.partnerId))) throw new OnboardingError(`partner ${input.partnerId} not found`);
  const ids = { organizationId, partnerId: input.partnerId };
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    const wasEnabled = await deletePartnerEnablement(trx, ids);
    const ended = await endSignInsThroughPartner(trx, ids);
    record(auditRecords, { action: 'admin.partner_disable', organizationId, detail: { partnerId: input.partnerId, count: ended.sessions } });
    return { organization_id: organizationId, partner_id: input.partnerId, already_disabled: !wasEnabled, sessions_ended: ended.sessions, sso_links_revoked: ended.links };
  });
}

/** Ends the organization's portal sessions, or only one user's; how many ended. */
export async function revokePortalSessions(
  ctx: OnboardingContext,
  input: { organizationId: string; userId?: string | undefined },
): Promise<{ organization_id: string; user_id: string | null; sessions_ended: number }> {
  const organizationId = input.organizationId.toLowerCase();
  const userId = input.userId?.toLowerCase();
  if (!(await findOrganization(ctx.db, organizationId))) throw new OnboardingError(`organization ${input.organizationId} not found`);
  if (userId !== undefined && (await findStoredUser(ctx.users, userId))?.user.organization_id !== organizationId) {
    throw new OnboardingError(`user ${input.userId} not found in organization ${organizationId}`);
  }
  const ended = await ctx.unitOfWork.run(async ({ trx, record }) => {
    const count = await endPortalSessionsOf(trx, { organizationId, userId });
    record(auditRecords, { action: 'admin.sessions_revoke', organizationId, targetUserId: userId ?? null, detail: { count } });
    return count;
  });
  return { organization_id: organizationId, user_id: userId ?? null, sessions_ended: ended };
}
