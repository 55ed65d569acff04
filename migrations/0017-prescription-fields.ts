// The rest of the vendor's Prescription fields (issue 29): the PBS/RPBS authority number (an
// approval number or a streamlined code) and the telephone approval number, the controlled
// substance reference, annotations, and each prescriber's own script number.
//
// prescriber_script_number numbers a prescriber's prescriptions 1, 2, 3, ... The last number
// given is kept per prescriber in prescriber_script_numbers and taken by one upsert in the
// creating transaction (a row lock on PostgreSQL, the single writer on SQLite), so two
// prescriptions written at once never share a number; the unique index holds it regardless.
// Prescriptions made before this migration are numbered in the order they were created.
import { sql, type Kysely } from 'kysely';

const TEXT_COLUMNS = ['pbsdva_authority_number', 'phone_approval_authority_number', 'controlled_substance_reference', 'annotations'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of TEXT_COLUMNS) await db.schema.alterTable('prescriptions').addColumn(column, 'text').execute();
  // SQLite adds a NOT NULL column only with a default; every row is numbered just below.
  await db.schema
    .alterTable('prescriptions')
    .addColumn('prescriber_script_number', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`UPDATE prescriptions SET prescriber_script_number = CAST(numbered.n AS TEXT)
    FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY prescriber_user_id ORDER BY created_at, id) AS n FROM prescriptions) AS numbered
    WHERE prescriptions.id = numbered.id`.execute(db);
  await db.schema
    .createIndex('prescriptions_prescriber_script_number_unique')
    .on('prescriptions')
    .columns(['prescriber_user_id', 'prescriber_script_number'])
    .unique()
    .execute();

  await db.schema
    .createTable('prescriber_script_numbers')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('last_number', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO prescriber_script_numbers (user_id, last_number)
    SELECT prescriber_user_id, COUNT(*) FROM prescriptions GROUP BY prescriber_user_id`.execute(db);
}
