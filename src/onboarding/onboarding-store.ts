// Queries for partners, organizations and which partners an organization has enabled.
import type { Kysely, Insertable } from 'kysely';
import type { Database, OrganizationsTable, PartnersTable } from '../platform/db/database-schema.ts';

export async function insertPartner(db: Kysely<Database>, row: Insertable<PartnersTable>): Promise<void> {
  await db.insertInto('partners').values(row).execute();
}

export async function findPartner(db: Kysely<Database>, partnerId: string) {
  return db.selectFrom('partners').selectAll().where('id', '=', partnerId).executeTakeFirst();
}

/** Whether the partner exists (and now has these frame origins). */
export async function updatePartnerFrameOrigins(db: Kysely<Database>, partnerId: string, originsJson: string): Promise<boolean> {
  const result = await db.updateTable('partners').set({ frame_origins: originsJson }).where('id', '=', partnerId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertOrganization(db: Kysely<Database>, row: Insertable<OrganizationsTable>): Promise<void> {
  await db.insertInto('organizations').values(row).execute();
}

export async function findOrganization(db: Kysely<Database>, organizationId: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst();
}

export async function insertPartnerEnablement(
  db: Kysely<Database>,
  row: { organization_id: string; partner_id: string; enabled_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto('organization_partners')
    .values({ ...row, validated_at: null })
    .onConflict((oc) => oc.columns(['organization_id', 'partner_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function countPartners(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('partners').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Replaces the secret's hash; the replaced hash is kept, accepted until `previousExpiresAt`, or
 * dropped when that is null. One statement, so two rotations at once cannot lose a hash between
 * them. Whether the row exists.
 */
export async function replaceSecretHash(
  db: Kysely<Database>,
  table: 'partners' | 'organizations',
  id: string,
  change: { secretHash: string; previousExpiresAt: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set((eb) => ({
      secret_hash: change.secretHash,
      previous_secret_hash: change.previousExpiresAt === null ? null : eb.ref('secret_hash'),
      previous_secret_expires_at: change.previousExpiresAt,
    }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether the organization enabled the partner until now. */
export async function deletePartnerEnablement(db: Kysely<Database>, ids: { organizationId: string; partnerId: string }): Promise<boolean> {
  const result = await db
    .deleteFrom('organization_partners')
    .where('organization_id', '=', ids.organizationId)
    .where('partner_id', '=', ids.partnerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Whether the organization exists (and now has this practice address and phone). */
export async function updateOrganizationPractice(
  db: Kysely<Database>,
  organizationId: string,
  practice: { street: string; suburb: string; state: OrganizationsTable['practice_state']; postcode: string; phone: string },
): Promise<boolean> {
  const result = await db
    .updateTable('organizations')
    .set({ practice_street: practice.street, practice_suburb: practice.suburb, practice_state: practice.state, practice_postcode: practice.postcode, practice_phone: practice.phone })
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
