// The custom drug catalog. One table for both levels: `user_id` null is the organization
// catalog, otherwise the drug belongs to that user. Both levels have the same fields, and a
// prescriber's list (catalog plus own drugs) is then one indexed query. Every change records
// who (a user id) and when; a delete only marks the row, so its author is kept too.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('custom_drugs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.references('users.id'))
    .addColumn('item_generic_name', 'text', (c) => c.notNull())
    .addColumn('item_trade_name', 'text')
    .addColumn('brand_name', 'text')
    .addColumn('item_strength', 'text', (c) => c.notNull())
    .addColumn('item_form', 'text', (c) => c.notNull())
    .addColumn('route_of_administration', 'text', (c) => c.notNull())
    .addColumn('quantity', 'text', (c) => c.notNull())
    .addColumn('max_repeats', 'text', (c) => c.notNull())
    .addColumn('poison_class', 'text', (c) => c.notNull())
    .addColumn('custom_product_id', 'text')
    .addColumn('description', 'text')
    .addColumn('patient_instructions', 'text')
    .addColumn('doctor_instructions', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .addColumn('deleted_by', 'text')
    .execute();
  await db.schema.createIndex('custom_drugs_owner_idx').on('custom_drugs').columns(['organization_id', 'user_id']).execute();
  await db.schema
    .createIndex('custom_drugs_product_idx')
    .on('custom_drugs')
    .columns(['organization_id', 'custom_product_id'])
    .execute();
}
