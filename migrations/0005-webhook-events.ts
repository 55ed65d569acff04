// The webhook outbox: one row per event partners hear about, written in the same transaction
// as the change it reports (so an event exists exactly when its change committed). `body` is
// the envelope as it will be sent, fixed when the event is created: every delivery and replay
// sends the same bytes, each under a fresh signature.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_events_partner_idx').on('webhook_events').columns(['partner_id', 'created_at']).execute();
}
