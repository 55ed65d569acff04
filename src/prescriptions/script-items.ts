// The words a script prints for each item of script-content-rules.ts, from a prescription's
// legal content: null where the item does not apply to this prescription (no authority, no
// SCID, brand substitution permitted...). The PDF prints these; the tests look for them in it.
import type { PrescriptionLegalContent } from './prescription-legal-content.ts';
import type { ScriptItem } from './script-content-rules.ts';

/** 2026-11-28 → 28/11/2026, as Australian dates are written. */
export function australianDate(isoDate: string): string {
  const [year, month, day] = isoDate.slice(0, 10).split('-');
  return `${day}/${month}/${year}`;
}

const NOT_RECORDED = 'not recorded';

function medicareOrDva(patient: PrescriptionLegalContent['patient']): string | null {
  const parts: string[] = [];
  if (patient.medicareNumber) parts.push(`Medicare ${patient.medicareNumber}${patient.medicareIrn ? ` (IRN ${patient.medicareIrn})` : ''}`);
  if (patient.dvaFileNumber) parts.push(`DVA ${patient.dvaFileNumber}`);
  return parts.length > 0 ? parts.join('; ') : 'none recorded';
}

function practiceAddressOf(organization: PrescriptionLegalContent['organization']): string {
  const { name, street, suburb, state, postcode } = organization;
  if (street === null) return NOT_RECORDED;
  return [name, street, [suburb, state, postcode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
}

function authorityOf(authority: PrescriptionLegalContent['authority']): string | null {
  const parts = [authority.approvalOrStreamlinedCode, authority.phoneApprovalNumber && `${authority.phoneApprovalNumber} (telephone approval)`].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : null;
}

/** Each item's printed words (null: not on this prescription). */
export function scriptItemsOf(content: PrescriptionLegalContent): Record<ScriptItem, string | null> {
  const { medicine, prescriber, organization, patient } = content;
  return {
    benefit: content.benefit,
    prescriber_name: prescriber.name,
    practice_address: practiceAddressOf(organization),
    practice_phone: organization.phone ?? NOT_RECORDED,
    prescriber_number: prescriber.prescriberNumber ?? NOT_RECORDED,
    prescriber_hpii: prescriber.hpii ?? NOT_RECORDED,
    organization_hpio: organization.hpio ?? NOT_RECORDED,
    patient_name: patient.name,
    patient_date_of_birth: australianDate(patient.dateOfBirth),
    patient_address: patient.address ?? 'none recorded',
    patient_medicare_or_dva: medicareOrDva(patient),
    date_written: australianDate(content.writtenOn),
    medicine: [medicine.name, medicine.strength, medicine.form].filter(Boolean).join(' '),
    directions: medicine.directions,
    quantity: medicine.quantity,
    repeats: medicine.repeats,
    repeat_interval: medicine.repeatIntervalDays === null ? null : `at least ${medicine.repeatIntervalDays} days between supplies`,
    authority: authorityOf(content.authority),
    permit_reference: content.controlledSubstanceReference,
    brand_substitution: content.brandSubstitutionNotPermitted ? 'Brand substitution not permitted' : null,
    regulation_24: content.regulation24 ? 'Regulation 24: supply the original and all repeats at once' : null,
    signature: `${prescriber.name}, signed:`,
    scid: content.scid,
    conformance_id: content.conformanceId ?? NOT_RECORDED,
    unique_id: content.uniqueId,
  };
}
