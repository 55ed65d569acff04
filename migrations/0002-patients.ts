// Patients of an organization. National identifiers (IHI, Medicare card number, DVA file
// number) are stored only as AES-256-GCM ciphertext; everything else is plain columns.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('patients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('partner_patient_id', 'text', (c) => c.notNull())
    // 'api' (created through POST .../patients) or 'import' (brought over from another system).
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('given_name', 'text', (c) => c.notNull())
    .addColumn('family_name', 'text', (c) => c.notNull())
    .addColumn('date_of_birth', 'text', (c) => c.notNull())
    .addColumn('sex', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('ihi_number_encrypted', 'text')
    .addColumn('ihi_status', 'text')
    .addColumn('ihi_record_status', 'text')
    .addColumn('ihi_verified_at', 'text')
    .addColumn('medicare_card_number_encrypted', 'text')
    .addColumn('medicare_irn', 'text')
    .addColumn('medicare_valid_to', 'text')
    .addColumn('dva_file_number_encrypted', 'text')
    .addColumn('dva_card_color', 'text')
    .addColumn('concession_pension_number', 'text')
    .addColumn('entitlement_number', 'text')
    .addColumn('racf_id', 'text')
    .addColumn('ctg_eligible', 'integer')
    .addColumn('indigenous_type', 'text')
    .addColumn('is_inpatient', 'integer')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('australian_street_address', 'text')
    .addColumn('international_address', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createIndex('patients_partner_patient_id_idx')
    .on('patients')
    // created_at and id too: the lookup orders by them, and without them SQLite builds a
    // temporary sort tree on every call (about 25 µs even when nothing matches).
    .columns(['organization_id', 'partner_patient_id', 'created_at', 'id'])
    .execute();
  // The spec's 409 ("several patients share this partner_patient_id") needs a way for that
  // state to arise: records brought over from a partner's previous e-prescribing system
  // (source 'import') keep their identifiers as they were, duplicates included. Patients
  // created through the API (source 'api') are unique per organization, and this partial
  // index makes that hold even when two creates race; create returns an existing patient
  // of either source instead of inserting.
  await db.schema
    .createIndex('patients_api_partner_patient_id_unique')
    .on('patients')
    .columns(['organization_id', 'partner_patient_id'])
    .unique()
    .where(sql.ref('source'), '=', sql.lit('api'))
    .execute();
}
