// Issue 38 item 1: a prescriber's HPI-I is AES-256-GCM ciphertext at rest, as the IHI is. Unlike
// the IHI it is looked up (one active holder per organization: the unique index, and the
// conflict checks), so beside it goes its keyed hash (HMAC-SHA-256 under the secret key), which
// the index and the lookups use; without the key the database cannot test guesses against it.
// Migrations have no secret key: the HPI-Is stored in clear are sealed, and their hashes written,
// by the startup step every process runs (src/platform/db/sealed-columns.ts). Until then their
// hash is null, which the unique index ignores. Each prescription's copy of its prescriber's
// HPI-I (printed on it, so never looked up) is sealed the same way, without a hash.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('provider_records_active_hpii_idx').execute();
  await db.schema.alterTable('provider_records').renameColumn('hpii_number', 'hpii_number_encrypted').execute();
  await db.schema.alterTable('provider_records').addColumn('hpii_number_hash', 'text').execute();
  await db.schema
    .createIndex('provider_records_active_hpii_idx')
    .on('provider_records')
    .columns(['organization_id', 'hpii_number_hash'])
    .unique()
    .where(sql<boolean>`status = 'active'`)
    .execute();
  await db.schema.alterTable('prescriptions').renameColumn('prescriber_hpii', 'prescriber_hpii_encrypted').execute();
}
