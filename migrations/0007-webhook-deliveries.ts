// Webhook delivery: each partner's endpoint settings (beside the URL and secret 0001 already
// holds), the deliveries of each event, and the log of every attempt.
//
// A delivery is one run of the spec's up-to-3 attempts for one event: the first is made when
// the event is recorded (same transaction as the event), each operator replay adds another.
// A dispatcher claims a due delivery for one attempt with a lease (owner + expiry) and bumps
// its fencing token; the outcome is written only if the token is still the one it claimed with.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await addEndpointColumns(db);
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    // 'event' (made with the event) or 'replay' (asked for by requested_by)
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text')
    // 'pending' until a 2xx ('delivered') or the last failed attempt ('failed')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts_made', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('fencing_token', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_outcome', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  // What a claim reads: one endpoint's pending deliveries, oldest due first. Partial, so the
  // index holds only the work still to do, however long the history grows.
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['partner_id', 'next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  // An event's deliveries (its latest one's state, its replays); operators reach a partner's
  // deliveries through its events (webhook_events_partner_idx). No other index: each one costs
  // every recorded attempt a write.
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').columns(['event_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('detail', 'text')
    .addColumn('sent_by', 'text', (c) => c.notNull())
    // Also how an event's attempts are found: through its deliveries.
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt_number'])
    .execute();
}

/** One ALTER per column: SQLite adds a single column per statement. */
async function addEndpointColumns(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').addColumn('webhook_enabled', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('partners').addColumn('webhook_secret_issued_at', 'text').execute();
  // The secret a rotation replaced, still signed with until the overlap ends.
  await db.schema.alterTable('partners').addColumn('webhook_previous_secret_encrypted', 'text').execute();
  await db.schema.alterTable('partners').addColumn('webhook_previous_secret_expires_at', 'text').execute();
}
