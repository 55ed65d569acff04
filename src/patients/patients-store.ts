// Queries for patients. Every one is scoped to an organization: a patient id from another
// organization finds nothing.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, PatientsTable } from '../platform/db/database-schema.ts';
import type { Awaitable } from '../platform/awaitable.ts';
import { precompileQuery } from '../platform/db/precompiled-query.ts';

export type PatientRow = Selectable<PatientsTable>;

const patientsByPartnerPatientId = precompileQuery<{ organizationId: string; partnerPatientId: string }, PatientRow>((db, param) =>
  db
    .selectFrom('patients')
    .selectAll()
    .where('organization_id', '=', param('organizationId'))
    .where('partner_patient_id', '=', param('partnerPatientId'))
    .orderBy('created_at')
    .orderBy('id')
    // A literal, not a parameter: SQLite plans a parameterised LIMIT with ORDER BY as a
    // sort (about 18 µs a call here) instead of reading the index in order.
    .limit(sql.lit(2)),
);

/** At most two patients holding this partner_patient_id: two are enough to know "several". Every precheck and create runs it. */
export function findPatientsByPartnerPatientId(db: Kysely<Database>, organizationId: string, partnerPatientId: string): Awaitable<PatientRow[]> {
  return patientsByPartnerPatientId(db, { organizationId, partnerPatientId });
}

export async function findPatientById(db: Kysely<Database>, organizationId: string, patientId: string) {
  return db
    .selectFrom('patients')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', patientId)
    .executeTakeFirst();
}

export async function insertPatient(db: Kysely<Database>, row: Insertable<PatientsTable>): Promise<void> {
  await db.insertInto('patients').values(row).execute();
}

export async function updatePatientRow(
  db: Kysely<Database>,
  organizationId: string,
  patientId: string,
  changes: Updateable<PatientsTable>,
): Promise<void> {
  await db
    .updateTable('patients')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('id', '=', patientId)
    .execute();
}
