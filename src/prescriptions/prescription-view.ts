// A stored prescription as partners read it (the vendor's Prescription object): quantity-like
// values as strings, fields that are not set absent, custom_drug_details empty unless the
// medicine is a custom drug, and error only when the status is Error. And the patient as
// the read calls show it, the date of birth as an ISO date-time like the vendor's.
import { decryptSecret } from '../platform/secrets.ts';
import type { PatientRow } from '../patients/index.ts';
import { viewOfDelivery } from './prescription-delivery.ts';
import { BOOLEAN_FLAGS, type BooleanFlag } from './prescription-fields.ts';
import type { PatientSummary, Prescription } from './prescriptions-schemas.ts';
import type { PrescriptionRow } from './prescriptions-store.ts';
import { tokenPageKeyOfRow } from './token-page-keys.ts';

/** Columns copied into the answer under the same name, when set. */
const OPTIONAL_COLUMNS = [
  'repeat_intervals', 'pbs_code', 'item_strength', 'item_form', 'route_administration',
  'pbsdva_authority_number', 'phone_approval_authority_number', 'schedule_number',
  'reason_for_prescribing', 'patient_instructions', 'doctor_notes', 'controlled_substance_reference', 'annotations',
] as const satisfies ReadonlyArray<keyof PrescriptionRow & keyof Prescription>;

/** The token page of a prescription; the portal context (where it is served) is at the root. */
export function tokenPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/tokens/${token}`;
}

function prescriberOf(row: PrescriptionRow): Prescription['prescriber'] {
  const names = { given_name: row.prescriber_given_name, family_name: row.prescriber_family_name, user_id: row.prescriber_user_id };
  return row.prescriber_title === null ? names : { title: row.prescriber_title, ...names };
}

/** What the script states of its software, itself and its writers (s41A), as the read API shows it. */
export function legalMetadataOf(row: PrescriptionRow, secretKey: Buffer): Prescription['legal_metadata'] {
  const hpii = row.prescriber_hpii_encrypted === null ? null : decryptSecret(row.prescriber_hpii_encrypted, secretKey);
  return { conformance_id: row.conformance_id, prescription_id: row.id, prescriber_hpii: hpii, organization_hpio: row.organization_hpio };
}

/** How a prescription is addressed: its SCID, or erx's id while the PDS has not assigned one. */
export function referenceOf(prescription: Pick<Prescription, 'scid' | 'legal_metadata'>): string {
  return prescription.scid ?? prescription.legal_metadata.prescription_id;
}

export function dispensingOf(row: PrescriptionRow): NonNullable<Prescription['dispensing']> {
  return { supplies_dispensed: Number(row.supplies_dispensed ?? 0), repeats_remaining: Number(row.repeats_remaining ?? 0), last_dispensed_at: row.last_dispensed_at };
}

export function viewOfPrescription(row: PrescriptionRow, links: { publicUrl: string; secretKey: Buffer }): Prescription {
  const delivery = viewOfDelivery(row, links.secretKey);
  const prescription: Prescription = {
    prescription_type: row.prescription_type,
    // A paper prescription has no token, so no token page to link to.
    ...(row.prescription_type === 'ELECTRONIC' ? { url: tokenPageUrl(links.publicUrl, tokenPageKeyOfRow(row, links.secretKey)) } : {}),
    ...(row.scid === null ? {} : { scid: row.scid }),
    status: row.status as Prescription['status'],
    created_date: row.created_at,
    item_name: row.item_name,
    quantity: row.quantity,
    number_of_repeats_authorised: row.number_of_repeats_authorised,
    prescriber_script_number: row.prescriber_script_number,
    prescriber: prescriberOf(row),
    custom_drug_details: row.custom_product_id === null ? {} : { custom_product_id: row.custom_product_id },
    ...(delivery ? { delivery } : {}),
    legal_metadata: legalMetadataOf(row, links.secretKey),
    ...(row.supplies_dispensed === null ? {} : { dispensing: dispensingOf(row) }),
  };
  const view = prescription as Record<string, unknown>;
  for (const column of OPTIONAL_COLUMNS) if (row[column] !== null) view[column] = row[column];
  const flags = JSON.parse(row.flags) as Partial<Record<BooleanFlag, boolean>>;
  for (const flag of BOOLEAN_FLAGS) if (typeof flags[flag] === 'boolean') view[flag] = flags[flag];
  // The vendor's older names for the pharmacy the token went to: its current delivery's.
  if (row.delivery_pharmacy_id !== null) prescription.send_to_pharmacy = row.delivery_pharmacy_id;
  if (row.delivery_pharmacy_name !== null) prescription.pharmacy_name = row.delivery_pharmacy_name;
  if (prescription.status === 'Error') prescription.error = { description: row.error_description ?? 'The prescription could not be processed' };
  return prescription;
}

export function summaryOfPatient(row: Pick<PatientRow, 'id' | 'partner_patient_id' | 'given_name' | 'family_name' | 'date_of_birth' | 'sex'>): PatientSummary {
  return {
    given_name: row.given_name,
    family_name: row.family_name,
    date_of_birth: `${row.date_of_birth}T00:00:00.000Z`,
    sex: row.sex,
    patient_id: row.id,
    partner_patient_id: row.partner_patient_id,
  };
}
