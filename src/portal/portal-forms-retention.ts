// The portal's retention step (registered in features.ts, after the sso feature's sessions):
// the one-time form ids of sessions that are gone (ended, signed out, pruned), which no post can
// present again.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { changedRows, countOf, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';

type Db = Kysely<Database>;

export function createPortalFormsRetentionStep(): RetentionStep {
  return singleKindStep({
    name: 'portal_form_ids',
    table: 'portal_form_ids',
    cutoffs: () => ({}),
    count: (db) => countOf(orphanFormIds(db).select((eb) => eb.fn.countAll<string>().as('n'))),
    batch: async (trx, _now, limit) => changedRows(await trx.deleteFrom('portal_form_ids').where('form_id', 'in', orphanFormIds(trx).select('f.form_id').limit(limit)).executeTakeFirst()),
  });
}

function orphanFormIds(db: Db) {
  return db
    .selectFrom('portal_form_ids as f')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('portal_sessions as s').select('s.session_hash').whereRef('s.session_hash', '=', 'f.session_hash'))));
}
