// The medicines catalogue: the PBS Schedule as last imported (`erx medicines import`). One row
// per PBS code (several brands and packs share one), the schedules imported so far (the
// current one marked), and the words a prescriber searches by: each item's generic name,
// brands, form and strength cut into lower-case words, so a search is an index range scan on
// word prefixes on both databases. On PostgreSQL the word column compares bytewise
// (COLLATE "C"), which keeps every word with a prefix inside one range of the index whatever
// the database's locale.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('pbs_schedules')
    .addColumn('schedule_code', 'text', (c) => c.primaryKey())
    .addColumn('effective_date', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .addColumn('current', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('pbs_items')
    .addColumn('pbs_code', 'text', (c) => c.primaryKey())
    .addColumn('drug_name', 'text', (c) => c.notNull())
    .addColumn('brand_names', 'text', (c) => c.notNull())
    .addColumn('form', 'text', (c) => c.notNull())
    .addColumn('strength', 'text')
    .addColumn('benefit_type', 'text', (c) => c.notNull())
    .addColumn('program_code', 'text', (c) => c.notNull())
    .addColumn('rpbs_only', 'integer', (c) => c.notNull())
    .addColumn('max_quantity', 'integer', (c) => c.notNull())
    .addColumn('max_repeats', 'integer', (c) => c.notNull())
    .addColumn('restriction_text', 'text')
    .addColumn('streamlined_codes', 'text', (c) => c.notNull())
    .addColumn('schedule_code', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('pbs_item_words')
    .addColumn('word', 'text', (c) => (postgres ? c.modifyFront(sql`collate "C"`).notNull() : c.notNull()))
    .addColumn('pbs_code', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pbs_item_words_pk', ['word', 'pbs_code'])
    .execute();
  await db.schema.createIndex('pbs_items_drug_name_idx').on('pbs_items').columns(['drug_name', 'pbs_code']).execute();
}
