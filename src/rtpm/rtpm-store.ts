// The rtpm_checks queries (src/platform/db/rtpm-tables.ts).
import type { Kysely, Selectable } from 'kysely';
import type { Database, RtpmChecksTable } from '../platform/db/database-schema.ts';

export type RtpmCheckRow = Selectable<RtpmChecksTable>;

export async function insertRtpmCheck(db: Kysely<Database>, row: RtpmCheckRow): Promise<void> {
  await db.insertInto('rtpm_checks').values(row).execute();
}

export async function findRtpmCheck(db: Kysely<Database>, ids: { id: string; organizationId: string; prescriberId: string; patientId: string }): Promise<RtpmCheckRow | undefined> {
  return db
    .selectFrom('rtpm_checks')
    .selectAll()
    .where('id', '=', ids.id)
    .where('organization_id', '=', ids.organizationId)
    .where('prescriber_user_id', '=', ids.prescriberId)
    .where('patient_id', '=', ids.patientId)
    .executeTakeFirst();
}

export async function updateRtpmCheck(db: Kysely<Database>, id: string, change: Partial<Pick<RtpmCheckRow, 'opened' | 'acknowledged_at' | 'attested_at' | 'reason'>>): Promise<void> {
  await db.updateTable('rtpm_checks').set(change).where('id', '=', id).execute();
}
