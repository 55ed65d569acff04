// Rotating a partner's or an organization's secret: the hash of the secret a rotation replaced
// is kept with the time it stops being accepted, so callers can switch over without downtime.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['partners', 'organizations']) {
    await db.schema.alterTable(table).addColumn('previous_secret_hash', 'text').execute();
    await db.schema.alterTable(table).addColumn('previous_secret_expires_at', 'text').execute();
  }
}
