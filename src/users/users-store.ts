// Queries for users. E-mail is unique across the platform and stored lower-cased.
import type { Insertable, Kysely } from 'kysely';
import type { Database, UsersTable } from '../platform/database-schema.ts';

export async function insertUser(db: Kysely<Database>, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserByEmail(db: Kysely<Database>, email: string) {
  return db.selectFrom('users').select(['id', 'organization_id']).where('email', '=', email).executeTakeFirst();
}
