// What a prescription states about who wrote it, copied in when it is written (as the
// prescriber's names already are), so that the script reads the same whenever it is shown or
// printed again: the conformance id of the software that prepared it and the HPI-I and HPI-O
// (PBS regulations s41A), the prescriber number, the organization's name and its practice
// address and phone (s40 and the states' rules). Null on prescriptions written before this
// migration: they were written without them, and the surfaces say so.
import type { Kysely } from 'kysely';

const COLUMNS = [
  'conformance_id',
  'prescriber_hpii',
  'prescriber_number',
  'organization_hpio',
  'organization_name',
  'practice_street',
  'practice_suburb',
  'practice_state',
  'practice_postcode',
  'practice_phone',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('prescriptions').addColumn(column, 'text').execute();
}
