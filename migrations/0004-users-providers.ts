// Provider records: a user's prescriber details, written only after the HI Service verified
// the HPI-I against the provider's names, date of birth and sex. One record per user. A record
// is `active` once verified; it becomes `inactive` when another user of the organization
// takes over its HPI-I while its holder is disabled. At most one active record per HPI-I in an
// organization (the partial unique index), so two racing writes cannot both hold it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('provider_records')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('hpii_number', 'text', (c) => c.notNull())
    .addColumn('given_name', 'text', (c) => c.notNull())
    .addColumn('family_name', 'text', (c) => c.notNull())
    .addColumn('date_of_birth', 'text', (c) => c.notNull())
    .addColumn('sex', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('title', 'text')
    .addColumn('prescriber_number', 'text')
    .addColumn('provider_number', 'text')
    .addColumn('prescriber_type', 'text')
    .addColumn('ahpra_number', 'text')
    .addColumn('qualifications', 'text')
    .addColumn('hospital_provider_number', 'text')
    .addColumn('erx_entity_id', 'text')
    .addColumn('verified_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('provider_records_active_hpii_idx')
    .on('provider_records')
    .columns(['organization_id', 'hpii_number'])
    .unique()
    .where(sql<boolean>`status = 'active'`)
    .execute();
}
