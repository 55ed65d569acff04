// The event feed (GET /v1/organizations/{id}/events, src/webhooks/event-feed.ts) lists events in
// an order no later commit can reach behind. On PostgreSQL each event keeps the id of the
// transaction that wrote it (pg_current_xact_id(), 64 bits so it never wraps), filled by the
// column default; the feed lists only events whose transaction is older than every transaction
// still in flight. Rows written before this migration all take the migration's own id. SQLite
// has one writer, so its rowid is already commit order: the column stays null there.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const fill = postgres ? sql`(pg_current_xact_id()::text::bigint)` : sql`null`;
  await db.schema.alterTable('webhook_events').addColumn('commit_xid', postgres ? 'bigint' : 'integer', (column) => column.defaultTo(fill)).execute();
  // The feed reads one partner's events of one organization in position order.
  await db.schema.createIndex('webhook_events_feed').on('webhook_events').columns(['partner_id', 'organization_id', 'commit_xid', 'id']).execute();
}
