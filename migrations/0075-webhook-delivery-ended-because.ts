// Why a delivery ended without an attempt (issue 38 item 5): `organization_withdrew_partner` when
// the event's organization no longer enables the partner (`erx org disable-partner`) by the time
// the delivery was due. Null for every delivery that ended by its attempts.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('ended_because', 'text').execute();
}
