// Where a user signs in. Disabling and enabling a user go through this interface so an
// external identity provider can be plugged in later; the built-in one is our own user
// store, whose `enabled` flag every token is checked against on every request (so a disabled
// user's tokens, existing ones included, stop working at once).
//
// Each call runs inside the service's transaction and gets it as `db`: a store-backed
// provider writes through it, an external one calls out last and throws to roll it back.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';

export interface IdentityAccount {
  /** The open transaction of the change. */
  db: Kysely<Database>;
  organizationId: string;
  userId: string;
  email: string;
}

export interface IdentityProvider {
  disableUser(account: IdentityAccount): Promise<void>;
  enableUser(account: IdentityAccount): Promise<void>;
}

async function setSignIn(account: IdentityAccount, enabled: 0 | 1): Promise<void> {
  await account.db
    .updateTable('users')
    .set({ enabled })
    .where('id', '=', account.userId)
    .where('organization_id', '=', account.organizationId)
    .execute();
}

export function createUserStoreIdentityProvider(): IdentityProvider {
  return {
    disableUser: (account) => setSignIn(account, 0),
    enableUser: (account) => setSignIn(account, 1),
  };
}
