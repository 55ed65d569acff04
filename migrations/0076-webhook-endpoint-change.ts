// A partner's change of its webhook URL waits (issue 38 item 5): the URL asked for and when it
// takes effect, until then deliveries go to webhook_url. Both null when no change is waiting.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').addColumn('webhook_pending_url', 'text').execute();
  await db.schema.alterTable('partners').addColumn('webhook_pending_url_at', 'text').execute();
}
