// What the PDS reported of a prescription's dispensing (read API `dispensing`, the portal's
// prescription page): supplies dispensed, repeats left, the last dispense. Null until the PDS
// accepted the prescription; a paper prescription has none.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('prescriptions').addColumn('supplies_dispensed', 'integer').execute();
  await db.schema.alterTable('prescriptions').addColumn('repeats_remaining', 'integer').execute();
  await db.schema.alterTable('prescriptions').addColumn('last_dispensed_at', 'text').execute();
}
