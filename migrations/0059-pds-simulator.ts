// The sandbox PDS's own records (src/pds/pds-simulator.ts): the scripts it accepted, kept apart
// from erx's prescriptions as a real PDS's are, so that what the PDS holds can be compared with
// what erx believes (a crash between submit and commit must leave exactly one script here: the
// unique id is unique).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pds_simulator_scripts')
    .addColumn('scid', 'text', (c) => c.primaryKey())
    // erx's unique id of the prescription: the submission's idempotency key.
    .addColumn('unique_id', 'text', (c) => c.notNull().unique())
    // 'active', 'cancelled' or 'ceased'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('supplies_authorised', 'integer', (c) => c.notNull())
    .addColumn('supplies_dispensed', 'integer', (c) => c.notNull())
    .addColumn('last_dispensed_at', 'text')
    // JSON list: one token per item.
    .addColumn('tokens', 'text', (c) => c.notNull())
    // JSON: the script as submitted.
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'text', (c) => c.notNull())
    .execute();
}
