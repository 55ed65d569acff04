// The partner's own id for a user (create user's partner_user_id), kept so that reading the
// user gives it back, as the partner's patient id is. Null for users made before this
// migration, by the operator, or without one. Not unique: the vendor documents no conflict for it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('partner_user_id', 'text').execute();
}
