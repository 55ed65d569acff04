// Limits of what a partner's secret alone can set going (issue 38 item 5): until when its
// running recover's replays are scheduled (a second recover is refused before then), and when
// it last pinged its endpoint (pings are spaced). Null: none yet.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').addColumn('webhook_recover_until', 'text').execute();
  await db.schema.alterTable('partners').addColumn('webhook_pinged_at', 'text').execute();
}
