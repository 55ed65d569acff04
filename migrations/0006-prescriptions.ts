// Prescriptions, and the deletion of patients they outlive.
//
// A prescription keeps what was prescribed as it was prescribed (the medicine, the prescriber's
// names) and the current delivery only (a reissue overwrites it). `scid` and `token` (the
// secret part of the token page's address) are unique across the platform. The list reads a
// patient's prescriptions newest first from (organization_id, patient_id, created_at, id).
//
// A deleted patient keeps its row, for the prescriptions that refer to it, with `deleted_at`
// set. Both partner_patient_id indexes of migration 0002 are rebuilt to leave deleted rows
// out: the unique one, so that the identifier is free for a new patient, and the lookup one,
// so that the precheck and create (which read it with `deleted_at IS NULL`) never see them.
import { sql, type Kysely } from 'kysely';

async function addPatientDeletion(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('patients').addColumn('deleted_at', 'text').execute();
  await db.schema.alterTable('patients').addColumn('deleted_by_user_id', 'text').execute();
  await db.schema.dropIndex('patients_api_partner_patient_id_unique').execute();
  await db.schema
    .createIndex('patients_api_partner_patient_id_unique')
    .on('patients')
    .columns(['organization_id', 'partner_patient_id'])
    .unique()
    .where(sql<boolean>`source = 'api' and deleted_at is null`)
    .execute();
  await db.schema.dropIndex('patients_partner_patient_id_idx').execute();
  await db.schema
    .createIndex('patients_partner_patient_id_idx')
    .on('patients')
    .columns(['organization_id', 'partner_patient_id', 'created_at', 'id'])
    .where(sql<boolean>`deleted_at is null`)
    .execute();
}

async function createPrescriptions(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('prescriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scid', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('patient_id', 'text', (c) => c.notNull().references('patients.id'))
    .addColumn('prescriber_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('prescription_type', 'text', (c) => c.notNull())
    .addColumn('item_name', 'text', (c) => c.notNull())
    .addColumn('item_strength', 'text')
    .addColumn('item_form', 'text')
    .addColumn('route_administration', 'text')
    .addColumn('pbs_code', 'text')
    .addColumn('schedule_number', 'text')
    .addColumn('quantity', 'text', (c) => c.notNull())
    .addColumn('number_of_repeats_authorised', 'text', (c) => c.notNull())
    .addColumn('repeat_intervals', 'text')
    .addColumn('reason_for_prescribing', 'text')
    .addColumn('patient_instructions', 'text')
    .addColumn('doctor_notes', 'text')
    // The boolean flags that were set, as a JSON object ({} when none).
    .addColumn('flags', 'text', (c) => c.notNull())
    .addColumn('custom_drug_id', 'text', (c) => c.references('custom_drugs.id'))
    .addColumn('custom_product_id', 'text')
    .addColumn('prescriber_title', 'text')
    .addColumn('prescriber_given_name', 'text', (c) => c.notNull())
    .addColumn('prescriber_family_name', 'text', (c) => c.notNull())
    .addColumn('delivery_method', 'text', (c) => c.notNull())
    .addColumn('delivery_recipient_type', 'text', (c) => c.notNull())
    .addColumn('delivery_destination', 'text', (c) => c.notNull())
    .addColumn('delivery_pharmacy_id', 'text')
    .addColumn('delivery_pharmacy_name', 'text')
    .addColumn('error_description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by_user_id', 'text', (c) => c.notNull().references('users.id'))
    .execute();
  await db.schema.createIndex('prescriptions_scid_unique').on('prescriptions').column('scid').unique().execute();
  await db.schema.createIndex('prescriptions_token_unique').on('prescriptions').column('token').unique().execute();
  await db.schema
    .createIndex('prescriptions_patient_idx')
    .on('prescriptions')
    .columns(['organization_id', 'patient_id', 'created_at', 'id'])
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await addPatientDeletion(db);
  await createPrescriptions(db);
}
