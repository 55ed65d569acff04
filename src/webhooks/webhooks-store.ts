// Queries of the webhook outbox.
import type { Insertable, Kysely } from 'kysely';
import type { Database, WebhookEventsTable } from '../platform/db/database-schema.ts';

export async function insertWebhookEvent(db: Kysely<Database>, row: Insertable<WebhookEventsTable>): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}
