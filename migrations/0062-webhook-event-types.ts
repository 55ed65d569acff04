// The event types a partner's endpoint receives (JSON list). Null: the vendor's four
// (prescription.created, .ceased, .cancelled, .reissued), so no partner receives a type it does
// not know unless it asks for it (prescription.dispensed).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').addColumn('webhook_event_types', 'text').execute();
}
