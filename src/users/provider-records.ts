// Writing provider records, shared by create user and update user. A record is written
// active only after the HI Service verified its identity set, inside the caller's transaction.
//
// One HPI-I, one active provider per organization: a holder that is enabled blocks the write
// (409, or a warning on create); a holder that is disabled is stale, and its record becomes
// inactive as the new one is written.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { DETAIL_FIELDS, RECORD_ACTIVE, RECORD_INACTIVE, type DetailField, type ProviderIdentity, type ProviderRecordRow } from './provider-details.ts';
import { findActiveHpiiHolders, insertProviderRecord, setProviderRecordStatus, updateProviderRecord } from './users-store.ts';

export interface RecordOwner {
  organizationId: string;
  userId: string;
}

/** True when another enabled user of the organization holds an active record with this HPI-I. */
export async function isHpiiHeldByAnother(db: Kysely<Database>, secretKey: Buffer, organizationId: string, hpiiNumber: string, exceptUserId?: string): Promise<boolean> {
  const holders = await findActiveHpiiHolders(db, secretKey, organizationId, hpiiNumber, exceptUserId);
  return holders.some((holder) => holder.enabled === 1);
}

/** Inside the write's transaction: false when an enabled holder blocks; else retires disabled holders' records. */
export async function claimHpii(trx: Kysely<Database>, secretKey: Buffer, owner: RecordOwner, hpiiNumber: string, at: string): Promise<boolean> {
  const holders = await findActiveHpiiHolders(trx, secretKey, owner.organizationId, hpiiNumber, owner.userId);
  if (holders.some((holder) => holder.enabled === 1)) return false;
  await setProviderRecordStatus(
    trx,
    owner.organizationId,
    holders.map((holder) => holder.user_id),
    RECORD_INACTIVE,
    at,
  );
  return true;
}

/** Creates the record, or updates it, as active and verified now. */
export async function writeVerifiedRecord(
  trx: Kysely<Database>,
  secretKey: Buffer,
  owner: RecordOwner,
  stored: ProviderRecordRow | undefined,
  identity: ProviderIdentity,
  details: Partial<Record<DetailField, string | null>>,
  at: string,
): Promise<void> {
  const verified = Object.assign({}, identity, details, { status: RECORD_ACTIVE, verified_at: at, updated_at: at });
  if (stored) {
    await updateProviderRecord(trx, secretKey, owner, verified);
    return;
  }
  const unset = Object.fromEntries(DETAIL_FIELDS.map((name) => [name, null])) as Record<DetailField, null>;
  await insertProviderRecord(trx, secretKey, Object.assign(unset, verified, { user_id: owner.userId, organization_id: owner.organizationId, created_at: at }));
}

/** Changes detail fields only (no identity change, so no verification was needed). */
export async function writeRecordDetails(
  trx: Kysely<Database>,
  secretKey: Buffer,
  owner: RecordOwner,
  details: Partial<Record<DetailField, string | null>>,
  at: string,
): Promise<void> {
  await updateProviderRecord(trx, secretKey, owner, Object.assign({}, details, { updated_at: at }));
}
