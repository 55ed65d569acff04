// Update user (PUT .../users/{user_id}): full_name and provider_details (or its alias
// prescriber_details), only the fields sent.
// Every check that can fail runs before anything is written (the HI lookup last of them), and
// the write (provider record and full_name) is one transaction, so a failure saves nothing.
// The user.update entry commits with it; the HI lookup has its own entry (hi.provider_verify).
import { auditRecords, maskIdentifier } from '../audit/index.ts';
import { validationFailed } from '../platform/http/api-error.ts';
import {
  detailColumnsOf,
  fullNameOf,
  requiredIdentityIssues,
  resolveIdentity,
  type ProviderDetailsPatch,
  type ProviderIdentity,
  type ProviderRecordRow,
} from './provider-details.ts';
import { claimHpii, isHpiiHeldByAnother, writeRecordDetails, writeVerifiedRecord, type RecordOwner } from './provider-records.ts';
import { askHiService, checkHpiiNumber, checkOrganizationHpio, hpiiConflict, needsHiLookup, rejectUnverified } from './provider-verification.ts';
import type { SubmittedBody } from '../platform/http/body-validation.ts';
import { readUserUpdate } from './users-input.ts';
import type { DetailsName } from './users-schemas.ts';
import { requireUser, type CallerOrganization, type UsersContext } from './users-service.ts';
import { isUniqueViolation } from '../platform/db/database.ts';
import { findProviderRecord, updateUserOfOrganization } from './users-store.ts';

interface ProviderWrite {
  patch: ProviderDetailsPatch;
  stored: ProviderRecordRow | undefined;
  identity: ProviderIdentity;
  /** The HI Service verified the identity set for this write. */
  verified: boolean;
}

/** The checks of the spec, in order: HPI-I format (400), identity set (422), then, when a lookup is due, HPI-O (400), holder (409), HI Service. */
async function prepareProviderWrite(
  ctx: UsersContext,
  owner: RecordOwner,
  caller: CallerOrganization,
  patch: ProviderDetailsPatch,
  sentAs: DetailsName = 'provider_details',
): Promise<ProviderWrite> {
  checkHpiiNumber(patch.hpii_number, `${sentAs}.hpii_number`);
  const stored = await findProviderRecord(ctx.db, ctx.secretKey, owner.organizationId, owner.userId);
  const resolved = resolveIdentity(patch, stored);
  if (!resolved.identity) throw validationFailed(requiredIdentityIssues(resolved.missing, `${sentAs}.`), 'The identity set is incomplete; nothing was saved');
  const identity = resolved.identity;
  if (!needsHiLookup(stored, patch)) return { patch, stored, identity, verified: false };
  checkOrganizationHpio(caller.organizationHpio);
  if (await isHpiiHeldByAnother(ctx.db, ctx.secretKey, owner.organizationId, identity.hpii_number, owner.userId)) throw hpiiConflict();
  rejectUnverified(await askHiService(ctx, { hpio: caller.organizationHpio!, userId: caller.userId }, identity, owner.userId), `${sentAs}.hpii_number`);
  return { patch, stored, identity, verified: true };
}

/** full_name follows the provider names when the record is created or its names change, unless sent. */
function followedFullName(write: ProviderWrite): string | undefined {
  const { stored, identity } = write;
  const namesChanged = !stored || stored.given_name !== identity.given_name || stored.family_name !== identity.family_name;
  return write.verified && namesChanged ? fullNameOf(identity) : undefined;
}

export async function updateUser(
  ctx: UsersContext,
  caller: CallerOrganization,
  pathUserId: string,
  body: SubmittedBody,
): Promise<{ user_id: string }> {
  const { organizationId } = caller;
  const user = await requireUser(ctx, organizationId, pathUserId);
  const update = readUserUpdate(body);
  const owner: RecordOwner = { organizationId, userId: user.id };
  const write = update.provider_details ? await prepareProviderWrite(ctx, owner, caller, update.provider_details, update.detailsName) : undefined;
  const fullName = update.full_name ?? (write && followedFullName(write));
  const at = ctx.clock.now().toISOString();
  try {
    await ctx.unitOfWork.run(async ({ trx, record }) => {
      record(auditRecords, { action: 'user.update', targetUserId: user.id, ...(write ? { detail: { hpii: maskIdentifier(write.identity.hpii_number) } } : {}) });
      if (write?.verified) {
        // Checked again inside the transaction: another request may have taken the HPI-I meanwhile.
        if (!(await claimHpii(trx, ctx.secretKey, owner, write.identity.hpii_number, at))) throw hpiiConflict();
        await writeVerifiedRecord(trx, ctx.secretKey, owner, write.stored, write.identity, detailColumnsOf(write.patch), at);
      } else if (write) {
        await writeRecordDetails(trx, ctx.secretKey, owner, detailColumnsOf(write.patch), at);
      }
      if (fullName !== undefined) await updateUserOfOrganization(trx, organizationId, user.id, { full_name: fullName, updated_at: at });
    });
  } catch (error) {
    // The active-HPI-I index refused a write racing another one for the same HPI-I.
    if (isUniqueViolation(error)) throw hpiiConflict();
    throw error;
  }
  return { user_id: user.id };
}
