// The MFA tables' queries (migration 0053). Every query names the organization and the user.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import type { MfaPolicy } from '../platform/db/stored-values.ts';

export type MfaFactorRow = Selectable<Database['mfa_factors']>;
type UserIds = { organizationId: string; userId: string };

export async function findOrganizationMfaPolicy(db: Kysely<Database>, organizationId: string): Promise<{ policy: MfaPolicy | null } | undefined> {
  const row = await db.selectFrom('organizations').select('mfa_policy').where('id', '=', organizationId).executeTakeFirst();
  return row && { policy: row.mfa_policy };
}

export async function updateOrganizationMfaPolicy(trx: Kysely<Database>, organizationId: string, policy: MfaPolicy): Promise<boolean> {
  const result = await trx.updateTable('organizations').set({ mfa_policy: policy }).where('id', '=', organizationId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findFactorsOf(db: Kysely<Database>, ids: UserIds): Promise<MfaFactorRow[]> {
  return db.selectFrom('mfa_factors').selectAll().where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).orderBy('created_at').orderBy('id').execute();
}

export async function insertFactor(trx: Kysely<Database>, row: Insertable<Database['mfa_factors']>): Promise<void> {
  await trx.insertInto('mfa_factors').values(row).execute();
}

export async function deleteFactor(trx: Kysely<Database>, ids: UserIds, factorId: string): Promise<boolean> {
  const result = await trx.deleteFrom('mfa_factors').where('id', '=', factorId).where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Deletes every factor, recovery code and counted failure of the user; how many factors went. */
export async function deleteEverythingMfaOf(trx: Kysely<Database>, ids: UserIds): Promise<number> {
  const result = await trx.deleteFrom('mfa_factors').where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).executeTakeFirst();
  await trx.deleteFrom('mfa_recovery_codes').where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).execute();
  await trx.deleteFrom('mfa_failures').where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).execute();
  return Number(result.numDeletedRows);
}

export async function updatePasskeyUse(trx: Kysely<Database>, factorId: string, signCount: number, at: string): Promise<void> {
  await trx.updateTable('mfa_factors').set({ sign_count: signCount, last_used_at: at }).where('id', '=', factorId).execute();
}

/** Claims `step` for the TOTP factor: false when a code of that step or a later one was already used. */
export async function claimTotpStep(trx: Kysely<Database>, factorId: string, step: number, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('mfa_factors')
    .set({ totp_last_step: step, last_used_at: at })
    .where('id', '=', factorId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function countRecoveryCodes(db: Kysely<Database>, ids: UserIds): Promise<{ issued: number; unused: number }> {
  const rows = await db.selectFrom('mfa_recovery_codes').select('used_at').where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).execute();
  return { issued: rows.length, unused: rows.filter((row) => row.used_at === null).length };
}

export async function replaceRecoveryCodes(trx: Kysely<Database>, ids: UserIds, hashes: string[], at: string): Promise<void> {
  await trx.deleteFrom('mfa_recovery_codes').where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).execute();
  await trx
    .insertInto('mfa_recovery_codes')
    .values(hashes.map((code_hash) => ({ code_hash, organization_id: ids.organizationId, user_id: ids.userId, created_at: at, used_at: null })))
    .execute();
}

/** Spends an unused code of the user: false when there is none with that hash. */
export async function spendRecoveryCode(trx: Kysely<Database>, ids: UserIds, codeHash: string, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('mfa_recovery_codes')
    .set({ used_at: at })
    .where('code_hash', '=', codeHash)
    .where('organization_id', '=', ids.organizationId)
    .where('user_id', '=', ids.userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sets the session's pending challenge of `purpose`, replacing any earlier one. */
export async function putChallenge(trx: Kysely<Database>, row: Insertable<Database['mfa_challenges']>): Promise<void> {
  await trx.deleteFrom('mfa_challenges').where('session_hash', '=', row.session_hash).where('purpose', '=', row.purpose).execute();
  await trx.insertInto('mfa_challenges').values(row).execute();
}

/** Deletes and returns the session's challenge of `purpose` (single use), expired or not. */
export async function takeChallenge(trx: Kysely<Database>, sessionHash: string, purpose: string): Promise<{ challenge: string; expires_at: string } | undefined> {
  return trx.deleteFrom('mfa_challenges').where('session_hash', '=', sessionHash).where('purpose', '=', purpose).returning(['challenge', 'expires_at']).executeTakeFirst();
}

export async function findChallenge(db: Kysely<Database>, sessionHash: string, purpose: string): Promise<{ challenge: string; expires_at: string } | undefined> {
  return db.selectFrom('mfa_challenges').select(['challenge', 'expires_at']).where('session_hash', '=', sessionHash).where('purpose', '=', purpose).executeTakeFirst();
}

export async function insertFailure(trx: Kysely<Database>, row: Insertable<Database['mfa_failures']>): Promise<void> {
  await trx.insertInto('mfa_failures').values(row).execute();
}

/** The user's latest `limit` wrong codes since `since`, newest first. */
export async function findRecentFailures(db: Kysely<Database>, ids: UserIds, since: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('mfa_failures')
    .select('failed_at')
    .where('organization_id', '=', ids.organizationId)
    .where('user_id', '=', ids.userId)
    .where('failed_at', '>=', since)
    .orderBy('failed_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.failed_at);
}

export async function deleteFailuresOf(trx: Kysely<Database>, ids: UserIds): Promise<void> {
  await trx.deleteFrom('mfa_failures').where('organization_id', '=', ids.organizationId).where('user_id', '=', ids.userId).execute();
}

export interface MfaUserRow {
  id: string;
  email: string;
  full_name: string;
  roles: string;
  enabled: number;
  mfa_reset_at: string | null;
}

export async function findMfaUser(db: Kysely<Database>, ids: UserIds): Promise<MfaUserRow | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'full_name', 'roles', 'enabled', 'mfa_reset_at'])
    .where('organization_id', '=', ids.organizationId)
    .where('id', '=', ids.userId)
    .executeTakeFirst();
}

export async function setUserMfaResetAt(trx: Kysely<Database>, ids: UserIds, at: string | null): Promise<void> {
  await trx.updateTable('users').set({ mfa_reset_at: at }).where('organization_id', '=', ids.organizationId).where('id', '=', ids.userId).execute();
}

/** The organization's users with how many factors each holds, by name. */
export async function listUsersWithFactorCounts(db: Kysely<Database>, organizationId: string): Promise<Array<MfaUserRow & { factors: number }>> {
  const rows = await db
    .selectFrom('users as u')
    .leftJoin('mfa_factors as f', (join) => join.onRef('f.user_id', '=', 'u.id').onRef('f.organization_id', '=', 'u.organization_id'))
    .select(['u.id', 'u.email', 'u.full_name', 'u.roles', 'u.enabled', 'u.mfa_reset_at'])
    .select((eb) => eb.fn.count<number | string>('f.id').as('factors'))
    .where('u.organization_id', '=', organizationId)
    .groupBy(['u.id', 'u.email', 'u.full_name', 'u.roles', 'u.enabled', 'u.mfa_reset_at'])
    .orderBy('u.full_name')
    .execute();
  return rows.map((row) => ({ ...row, factors: Number(row.factors) }));
}
