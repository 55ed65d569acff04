// Retention (erx prune, and hourly beside every dispatcher) deletes old rows in batches, each
// batch found through an index so a batch costs the same however large the history is.
//
// `retention_marks`: one row per kind of pruned record, holding the highest id pruned so far.
// Webhook event ids begin with their creation time (webhook-events.ts), so an event id at or
// below the mark that is no longer stored was pruned: a replay can say so instead of "not found",
// for the price of one row, not a tombstone per event.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('retention_marks')
    .addColumn('kind', 'text', (c) => c.primaryKey())
    .addColumn('pruned_through', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Events by age across partners (webhook_events_partner_idx leads with the partner).
  await db.schema.createIndex('webhook_events_created_idx').on('webhook_events').column('created_at').execute();
  // Attempts that still hold a receiver's body, by age. Partial: an attempt leaves the index once
  // its body is pruned, so the index holds at most the bodies' retention period of attempts.
  await db.schema
    .createIndex('webhook_attempts_body_idx')
    .on('webhook_attempts')
    .column('started_at')
    .where(sql.ref('response_body'), 'is not', null)
    .execute();
}
