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
