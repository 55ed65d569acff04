// A prescription is electronic only once the PDS accepted it (DESIGN decision 25): until then
// it is Pending with no SCID (scid may now be null), and its submission is a durable job, one
// row per prescription (its id is the prescription's), leased and fenced as token messages
// are, retried while the PDS cannot be reached until deadline_at (ERX_PDS_BUDGET_MS after it
// was written). Nothing references prescriptions, so the SQLite rebuild of drop-not-null can
// run.
import { sql, type Kysely } from 'kysely';
import { dropNotNull } from '../src/platform/db/drop-not-null.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await dropNotNull(db, 'prescriptions', ['scid']);
  await db.schema
    .createTable('pds_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    // 'pending', 'accepted', 'refused', 'expired' (unreachable past its deadline) or 'withdrawn'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts_made', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('deadline_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('fencing_token', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON: reserved_1..3 of the create, for the prescription.created event once accepted.
    .addColumn('event_metadata', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('pds_submissions_due_idx').on('pds_submissions').columns(['next_attempt_at']).where(sql.ref('status'), '=', 'pending').execute();
}
