// Issue 38 item 1: a prescription made before token page keys were hashed kept its key in clear
// in `token`, so the database alone opened its page. Such a key cannot be derived again (it was
// random), and a reissue must send it, so it is kept here AES-256-GCM under the secret key while
// `token` holds only its SHA-256, as a new prescription's does. Migrations have no secret key:
// the startup step every process runs converts the keys still in clear
// (src/platform/db/sealed-columns.ts). Null for every prescription whose key is derived.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('prescriptions').addColumn('token_page_key_encrypted', 'text').execute();
}
