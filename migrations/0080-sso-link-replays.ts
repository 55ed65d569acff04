// When a used SSO link was first brought again (issue 38 item 4): that replay is an entry of the
// audit chain against the link's user; later ones are counted in the security alerts only, so a
// replayed link cannot grow the 7-year chain by more than one entry.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sso_tokens').addColumn('replay_noted_at', 'text').execute();
}
