// Whether each webhook attempt went out through the address guard (issue 38 item 6). A sandbox
// on loopback delivers to any address, so a receiver's answer from there may be an internal
// service's: partners see an attempt's response body only when the attempt was guarded.
// Attempts recorded before this column are counted unguarded (their bodies go within 30 days).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('address_guarded', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
