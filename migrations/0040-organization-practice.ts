// An organization's practice: the street address, suburb, state, postcode and phone a paper
// prescription prints under the prescriber's name (PBS regulations s40; the states' poisons
// rules ask for the prescriber's address and phone). Null until the operator records them with
// `erx org set-practice`; until then the organization's prescribers cannot prescribe. The state
// is kept as its abbreviation (NSW, VIC, ...): a later issue picks state rules by it.
import type { Kysely } from 'kysely';

const COLUMNS = ['practice_street', 'practice_suburb', 'practice_state', 'practice_postcode', 'practice_phone'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('organizations').addColumn(column, 'text').execute();
}
