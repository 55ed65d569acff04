// The W3C traceparent of the request whose change wrote a webhook event, so each delivery
// attempt's span can link to that request's span (src/platform/telemetry/). Null when traces
// were off, and for every event written before this migration.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_events').addColumn('traceparent', 'text').execute();
}
