// Queries for patients. Every one is scoped to an organization: a patient id from another
// organization finds nothing. A deleted patient (deleted_at set) is found by none of them: its
// row stays only for the prescriptions that refer to it.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, PatientsTable, PrescriptionsTable } from '../platform/db/database-schema.ts';
import type { Awaitable } from '../platform/awaitable.ts';
import { holdsRowLocks } from '../platform/db/database.ts';
import { precompileQuery } from '../platform/db/precompiled-query.ts';

export type PatientRow = Selectable<PatientsTable>;

const patientsByPartnerPatientId = precompileQuery<{ organizationId: string; partnerPatientId: string }, PatientRow>((db, param) =>
  db
    .selectFrom('patients')
    .selectAll()
    .where('organization_id', '=', param('organizationId'))
    .where('partner_patient_id', '=', param('partnerPatientId'))
    // Also the condition of the partial index this reads (migration 0006).
    .where('deleted_at', 'is', null)
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
    .where('deleted_at', 'is', null)
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
    .where('deleted_at', 'is', null)
    .execute();
}

/**
 * Inside a transaction that adds a prescription: whether the patient is still there. On
 * PostgreSQL the row is also locked (FOR SHARE) until the transaction ends, so a delete
 * running at the same time waits for it and then sees the new prescription; SQLite runs one
 * write transaction at a time, so needs no lock.
 */
export async function lockLivePatient(trx: Kysely<Database>, organizationId: string, patientId: string): Promise<boolean> {
  let query = trx
    .selectFrom('patients')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', '=', patientId)
    .where('deleted_at', 'is', null);
  if (holdsRowLocks(trx)) query = query.forShare();
  return (await query.executeTakeFirst()) !== undefined;
}

/** Marks the live patient deleted; returns whether there was one. On PostgreSQL the row stays locked until the transaction ends. */
export async function markPatientDeleted(
  trx: Kysely<Database>,
  organizationId: string,
  patientId: string,
  stamp: { deleted_at: string; deleted_by_user_id: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('patients')
    .set(stamp)
    .where('organization_id', '=', organizationId)
    .where('id', '=', patientId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The SCIDs of the patient's Active prescriptions, and erx's ids of its Pending ones (being sent to the PDS, no SCID yet) (at most `limit`). Read here, not through
 * the prescriptions feature, which itself builds on patients: deleting a patient is a patient
 * operation whose one rule happens to be about its prescriptions.
 */
export async function findActivePrescriptionScids(trx: Kysely<Database>, organizationId: string, patientId: string, limit: number): Promise<string[]> {
  const rows = await trx
    .selectFrom('prescriptions')
    .select(['scid', 'id'])
    .where('organization_id', '=', organizationId)
    .where('patient_id', '=', patientId)
    .where('status', 'in', ['Active', 'Pending'] satisfies Array<PrescriptionsTable['status']>)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.scid ?? row.id);
}
