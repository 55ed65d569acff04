// Real-time prescription monitoring checks (issue 41): one row per check or attestation made
// before a monitored medicine is written in the portal (src/platform/db/rtpm-tables.ts says
// what each column holds). Kept a day (src/rtpm/rtpm-retention.ts); the audit trail keeps the
// check, the acknowledgement and the attestation for as long as it keeps everything.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rtpm_checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('patient_id', 'text', (c) => c.notNull().references('patients.id'))
    .addColumn('prescriber_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('level', 'text')
    .addColumn('notifications', 'text', (c) => c.notNull())
    .addColumn('opened', 'text', (c) => c.notNull())
    .addColumn('acknowledged_at', 'text')
    .addColumn('attested_at', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rtpm_checks_created_idx').on('rtpm_checks').columns(['created_at']).execute();
}
