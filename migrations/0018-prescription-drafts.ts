// Prescription drafts: the approval queue. A user with rx_queue_manager prepares a prescription
// for a named prescriber of the organization; it waits here until that prescriber approves it
// (it is then created through the prescriptions service like any other, and `scid` names it)
// or declines it with a reason. A waiting draft has no SCID and sends no event.
//
// `body` is the validated prescribe body as a JSON document (the fields the create path reads),
// handed back to the create path on approval: the prescription's fields are the create path's
// to know, so a field added there needs no column here. `medicine` is its description, for the
// queue's lists. `status` moves once, from `waiting` to `approved` or `declined`, by a
// conditional update: of two concurrent decisions one changes the row, the other finds it decided.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('prescription_drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('patient_id', 'text', (c) => c.notNull().references('patients.id'))
    .addColumn('prescriber_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('prepared_by_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('medicine', 'text', (c) => c.notNull())
    .addColumn('decline_reason', 'text')
    .addColumn('scid', 'text')
    .addColumn('decided_by_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('decided_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('prescription_drafts_prescriber_idx').on('prescription_drafts').columns(['organization_id', 'prescriber_user_id', 'created_at']).execute();
  await db.schema.createIndex('prescription_drafts_preparer_idx').on('prescription_drafts').columns(['organization_id', 'prepared_by_user_id', 'created_at']).execute();
}
