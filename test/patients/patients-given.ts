// Factories for the patient tests: bodies built from HI test identities, and patients written
// straight to the table (as an import would).
import { randomUUID } from 'node:crypto';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { type HiPatientFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { encryptSecret } from '../../src/platform/secrets.ts';
import type { GivenIntegration } from '../given.ts';
import type { TestApp } from '../test-app.ts';

export const DEMO = HI_DEMO_PATIENTS;

let sequence = 0;
export const freshPartnerPatientId = () => `PMS#${process.pid}-${++sequence}-${Math.random().toString(36).slice(2, 6)}`;

export function demographicsOf(person: HiPatientFixture) {
  const { family_name, given_name, date_of_birth, sex } = person;
  return { family_name, given_name, date_of_birth, sex };
}

/** The Medicare card number and IRN of a demo identity, the search path most tests use. */
export const medicareOf = (person: { medicare_card_number: string; medicare_irn: string }) => ({
  medicare_card_number: person.medicare_card_number,
  medicare_irn: person.medicare_irn,
});

/** The body of a patient: demographics of `person`, the given identifiers, a fresh partner_patient_id. */
export function patientBody(g: GivenIntegration, person: HiPatientFixture, identifiers: Record<string, unknown> = {}) {
  return { partner_patient_id: freshPartnerPatientId(), partner_id: g.partnerId, ...demographicsOf(person), ...identifiers };
}

/**
 * A patient brought over from another system (source 'import'), written straight to the
 * table: imports are how several patients can come to share one partner_patient_id.
 */
export async function givenImportedPatient(t: TestApp, g: GivenIntegration, partnerPatientId: string, options: { ihiNumber?: string } = {}) {
  return insertPatientRow(t, g, partnerPatientId, { ...options, source: 'import' });
}

/** Writes a patient row straight to the table, bypassing the service. */
export async function insertPatientRow(
  t: TestApp,
  g: GivenIntegration,
  partnerPatientId: string,
  options: { ihiNumber?: string; source: 'api' | 'import' },
) {
  const id = randomUUID();
  const now = t.clock.now().toISOString();
  await t.deps.database
    .insertInto('patients')
    .values({
      id,
      organization_id: g.organizationId,
      partner_id: g.partnerId,
      partner_patient_id: partnerPatientId,
      source: options.source,
      created_by_user_id: null,
      given_name: 'Imported',
      family_name: 'Patient',
      date_of_birth: '1970-01-01',
      sex: 'F',
      title: null,
      ihi_number_encrypted: options.ihiNumber ? encryptSecret(options.ihiNumber, t.deps.secretKey) : null,
      ihi_status: options.ihiNumber ? 'ACTIVE' : null,
      ihi_record_status: options.ihiNumber ? 'VERIFIED' : null,
      ihi_verified_at: null,
      medicare_card_number_encrypted: null,
      medicare_irn: null,
      medicare_valid_to: null,
      dva_file_number_encrypted: null,
      dva_card_color: null,
      concession_pension_number_encrypted: null,
      entitlement_number_encrypted: null,
      racf_id: null,
      ctg_eligible: null,
      indigenous_type: null,
      is_inpatient: null,
      email_encrypted: null,
      phone_encrypted: null,
      australian_street_address: null,
      international_address: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export async function readPatientRow(t: TestApp, patientId: string) {
  return t.deps.database.selectFrom('patients').selectAll().where('id', '=', patientId).executeTakeFirstOrThrow();
}

export async function countPatients(t: TestApp, organizationId: string): Promise<number> {
  const rows = await t.deps.database.selectFrom('patients').select('id').where('organization_id', '=', organizationId).execute();
  return rows.length;
}
