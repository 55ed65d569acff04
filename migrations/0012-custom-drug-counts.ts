// How many live custom drugs each organization holds, kept beside the organization so the cap
// (ERX_CUSTOM_DRUGS_MAX) is one conditional UPDATE per create instead of a count of its drugs
// (a count cost bulk creates four fifths of their throughput at 300,000 drugs), and atomic on
// PostgreSQL too. Filled from the drugs there are.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('custom_drugs_held', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE organizations SET custom_drugs_held = (
    SELECT COUNT(*) FROM custom_drugs WHERE custom_drugs.organization_id = organizations.id AND custom_drugs.deleted_at IS NULL
  )`.execute(db);
}
