// Queries for users and their provider records. E-mail is unique across the platform and
// stored lower-cased. Every query that takes a path user id also takes the organization, so
// another organization's user is never found. A provider record's HPI-I is sealed (AES-256-GCM)
// in the row and found by its keyed hash: the functions here take the secret key and hand the
// rest of the feature the HPI-I in clear.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, ProviderRecordsTable, UsersTable } from '../platform/db/database-schema.ts';
import { holdsRowLocks } from '../platform/db/database.ts';
import { HPII_HASH_PURPOSE } from '../platform/db/sealed-columns.ts';
import type { ProviderRecordStatus } from '../platform/db/stored-values.ts';
import { decryptSecret, encryptSecret, keyedHashOf } from '../platform/secrets.ts';
import { RECORD_ACTIVE, type ProviderRecordRow } from './provider-details.ts';

export type UserRow = Selectable<UsersTable>;

export async function insertUser(db: Kysely<Database>, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserByEmail(db: Kysely<Database>, email: string) {
  return db.selectFrom('users').select(['id', 'organization_id']).where('email', '=', email).executeTakeFirst();
}

export async function isUserOfOrganization(db: Kysely<Database>, organizationId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', userId).where('organization_id', '=', organizationId).executeTakeFirst();
  return row !== undefined;
}

/** Any user, whatever its organization: for the operator only. */
export async function findUserById(db: Kysely<Database>, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

export async function findUserOfOrganization(db: Kysely<Database>, organizationId: string, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).where('organization_id', '=', organizationId).executeTakeFirst();
}

/** Every user of the organization, in e-mail order (the organization and e-mail index). */
/**
 * Inside a transaction that may take away an enabled owner: on PostgreSQL locks the
 * organization's row until the transaction ends, so two such changes to one organization run
 * one after the other and the second counts the owners the first left. SQLite runs one write
 * transaction at a time, so needs no lock.
 */
export async function lockOrganizationOwners(trx: Kysely<Database>, organizationId: string): Promise<void> {
  if (!holdsRowLocks(trx)) return;
  await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forUpdate().execute();
}

/** Whether an enabled user other than `exceptUserId` holds the owner role (roles are a JSON list of names). */
export async function hasOtherEnabledOwner(db: Kysely<Database>, organizationId: string, exceptUserId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('enabled', '=', 1)
    .where('id', '!=', exceptUserId)
    .where('roles', 'like', '%"owner"%')
    .executeTakeFirst();
  return row !== undefined;
}

export async function listUserEmailsOfOrganization(db: Kysely<Database>, organizationId: string): Promise<Array<{ id: string; email: string }>> {
  return db.selectFrom('users').select(['id', 'email']).where('organization_id', '=', organizationId).orderBy('email').execute();
}

export async function updateUserOfOrganization(
  db: Kysely<Database>,
  organizationId: string,
  userId: string,
  changes: Updateable<UsersTable>,
): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', userId).where('organization_id', '=', organizationId).execute();
}

type HpiiColumns = 'hpii_number_encrypted' | 'hpii_number_hash';
const hpiiHashOf = (hpiiNumber: string, secretKey: Buffer) => keyedHashOf(HPII_HASH_PURPOSE, hpiiNumber, secretKey);

/** The record's columns with its HPI-I (if given) sealed, beside its keyed hash. */
function sealHpii<T extends { hpii_number?: string }>(record: T, secretKey: Buffer) {
  const { hpii_number: hpii, ...rest } = record;
  return hpii === undefined ? rest : { ...rest, hpii_number_encrypted: encryptSecret(hpii, secretKey), hpii_number_hash: hpiiHashOf(hpii, secretKey) };
}

export async function findProviderRecord(db: Kysely<Database>, secretKey: Buffer, organizationId: string, userId: string): Promise<ProviderRecordRow | undefined> {
  const row = await db.selectFrom('provider_records').selectAll().where('user_id', '=', userId).where('organization_id', '=', organizationId).executeTakeFirst();
  if (!row) return undefined;
  const { hpii_number_encrypted: sealed, hpii_number_hash: _hash, ...rest } = row;
  return { ...rest, hpii_number: decryptSecret(sealed, secretKey) };
}

export async function insertProviderRecord(db: Kysely<Database>, secretKey: Buffer, record: Omit<Insertable<ProviderRecordsTable>, HpiiColumns> & { hpii_number: string }): Promise<void> {
  await db.insertInto('provider_records').values(sealHpii(record, secretKey) as Insertable<ProviderRecordsTable>).execute();
}

export async function updateProviderRecord(
  db: Kysely<Database>,
  secretKey: Buffer,
  owner: { organizationId: string; userId: string },
  changes: Omit<Updateable<ProviderRecordsTable>, HpiiColumns> & { hpii_number?: string },
): Promise<void> {
  await db.updateTable('provider_records').set(sealHpii(changes, secretKey)).where('user_id', '=', owner.userId).where('organization_id', '=', owner.organizationId).execute();
}

/** Other users of the organization whose active record holds this HPI-I (found by its keyed hash), with whether they are enabled. */
export async function findActiveHpiiHolders(db: Kysely<Database>, secretKey: Buffer, organizationId: string, hpiiNumber: string, exceptUserId?: string) {
  let query = db
    .selectFrom('provider_records as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.user_id', 'u.enabled'])
    .where('p.organization_id', '=', organizationId)
    .where('p.hpii_number_hash', '=', hpiiHashOf(hpiiNumber, secretKey))
    .where('p.status', '=', RECORD_ACTIVE);
  if (exceptUserId !== undefined) query = query.where('p.user_id', '!=', exceptUserId);
  return query.execute();
}

export async function setProviderRecordStatus(db: Kysely<Database>, organizationId: string, userIds: string[], status: ProviderRecordStatus, at: string): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .updateTable('provider_records')
    .set({ status, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('user_id', 'in', userIds)
    .execute();
}

/** The organization's enabled users holding `role` (roles are a JSON list of names), in name order. */
export async function listEnabledUsersWithRole(db: Kysely<Database>, organizationId: string, role: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('enabled', '=', 1)
    .where('roles', 'like', `%"${role}"%`)
    .orderBy('family_name')
    .orderBy('given_name')
    .execute();
}
