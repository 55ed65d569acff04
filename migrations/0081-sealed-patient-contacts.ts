// Issue 38 item 1: a patient's phone and e-mail are where a token goes (a token SMS goes to the
// patient's mobile), so they are AES-256-GCM ciphertext at rest as the concession and
// entitlement numbers are (0070), and renamed to say so. Nothing looks a patient up or sorts by
// them, so no hash goes beside them. Migrations have no secret key: the values stored in clear
// are sealed by the startup step every process runs (src/platform/db/sealed-columns.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('patients').renameColumn('phone', 'phone_encrypted').execute();
  await db.schema.alterTable('patients').renameColumn('email', 'email_encrypted').execute();
}
