// One-time form ids of the portal's prescribing forms (new prescription; cease, cancel and
// reissue confirmations). A form id is issued when the form is rendered, signed for the portal
// session and for what the form acts on (`purpose`, `target`: the patient for a new
// prescription, the SCID for a change), so rendering writes nothing. The first post of a form
// inserts its row (the claim; the primary key lets only one post win) and records what it
// made (`result`: the SCID); a second post of the same form creates nothing and is sent to
// that result. A post that only re-shows the form (a validation error) deletes its claim, so
// the corrected form can be sent.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('portal_form_ids')
    .addColumn('form_id', 'text', (c) => c.primaryKey())
    .addColumn('session_hash', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .execute();
  await db.schema.createIndex('portal_form_ids_session_idx').on('portal_form_ids').column('session_hash').execute();
}
