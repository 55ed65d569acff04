// The legal content of a prescription: everything a script states about who wrote it, for
// whom, what and how (script-content-rules.ts says why each item is there), built from the
// stored rows alone. The prescription row carries the medicine and, copied in when it was
// written, the prescriber's and organization's identity and the conformance id (migration
// 0041); the patient's identity comes from the patient row. The PDF of a paper prescription is
// printed from it, and a PDS submission sends it.
import { decryptSecret } from '../platform/secrets.ts';
import { requirePatient, scriptIdentityOfPatient, type PatientRow, type PatientScriptIdentity } from '../patients/index.ts';
import { findPrescriptionById } from './prescriptions-store.ts';
import type { AustralianState } from '../identifiers/index.ts';
import type { PrescriptionType } from '../platform/db/stored-values.ts';
import type { BooleanFlag } from './prescription-fields.ts';
import type { PrescriptionRow } from './prescriptions-store.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';

export type Benefit = 'PBS' | 'RPBS' | 'Private';

export interface PrescriptionLegalContent {
  /** erx's own unique id of the prescription (s41A(a)(ii)): its id. */
  uniqueId: string;
  /** The software's conformance id when it was written (s41A(a)(i)); null: written before erx recorded it. */
  conformanceId: string | null;
  prescriptionType: PrescriptionType;
  /** The SCID, when the prescription has one (an electronic transfer paper script carries it as a barcode). */
  scid: string | null;
  status: string;
  /** The practice's local date it was written, YYYY-MM-DD. */
  writtenOn: string;
  prescriberScriptNumber: string;
  benefit: Benefit;
  prescriber: { userId: string; name: string; prescriberNumber: string | null; hpii: string | null };
  organization: { name: string | null; hpio: string | null; street: string | null; suburb: string | null; state: AustralianState | null; postcode: string | null; phone: string | null };
  patient: { name: string; dateOfBirth: string; address: string | null; medicareNumber: string | null; medicareIrn: string | null; dvaFileNumber: string | null; ihi: string | null };
  medicine: {
    name: string; strength: string | null; form: string | null; route: string | null; pbsCode: string | null; schedule: string | null;
    quantity: string; repeats: string; repeatIntervalDays: string | null; directions: string | null;
  };
  /** The PBS/RPBS authority approval number or streamlined code, and a telephone approval number. */
  authority: { approvalOrStreamlinedCode: string | null; phoneApprovalNumber: string | null };
  brandSubstitutionNotPermitted: boolean;
  regulation24: boolean;
  annotations: string | null;
  controlledSubstanceReference: string | null;
}

/** Each state's time zone: the day a prescription is written is the practice's own. */
const STATE_TIME_ZONES: Readonly<Record<AustralianState, string>> = {
  NSW: 'Australia/Sydney', ACT: 'Australia/Sydney', VIC: 'Australia/Melbourne', TAS: 'Australia/Hobart',
  QLD: 'Australia/Brisbane', SA: 'Australia/Adelaide', NT: 'Australia/Darwin', WA: 'Australia/Perth',
};

function localDate(at: string, state: AustralianState | null): string {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone: STATE_TIME_ZONES[state ?? 'NSW'], year: 'numeric', month: '2-digit', day: '2-digit' });
  return format.format(new Date(at));
}

function addressOf(patient: PatientScriptIdentity): string | null {
  const street = patient.australian_street_address;
  if (street) return `${street.street_number} ${street.street_name}, ${street.suburb} ${street.state} ${street.postcode}`;
  const abroad = patient.international_address;
  if (abroad) return [abroad.address_line, abroad.state_province, abroad.postcode, abroad.country].filter(Boolean).join(', ');
  return null;
}

/** Private: a private prescription, or one without a PBS code; RPBS: for a patient with a DVA file number; else PBS (script-content-rules.ts, "benefit"). */
function benefitOf(flags: Partial<Record<BooleanFlag, boolean>>, pbsCode: string | null, patient: PatientScriptIdentity): Benefit {
  if (flags.private_prescription === true || (pbsCode === null && flags.unlisted_item_repat_authority !== true)) return 'Private';
  return patient.dva_file_number !== null ? 'RPBS' : 'PBS';
}

const nameOf = (...parts: Array<string | null>) => parts.filter((part): part is string => typeof part === 'string' && part !== '').join(' ');

/** The legal content of a prescription, from its row and its patient's identity. */
export function buildPrescriptionLegalContent(rows: { prescription: PrescriptionRow; patient: PatientScriptIdentity }, secretKey: Buffer): PrescriptionLegalContent {
  const { prescription: p, patient } = rows;
  const hpii = p.prescriber_hpii_encrypted === null ? null : decryptSecret(p.prescriber_hpii_encrypted, secretKey);
  const flags = JSON.parse(p.flags) as Partial<Record<BooleanFlag, boolean>>;
  return {
    uniqueId: p.id,
    conformanceId: p.conformance_id,
    prescriptionType: p.prescription_type,
    scid: p.scid === '' ? null : p.scid,
    status: p.status,
    writtenOn: localDate(p.created_at, p.practice_state),
    prescriberScriptNumber: p.prescriber_script_number,
    benefit: benefitOf(flags, p.pbs_code, patient),
    prescriber: { userId: p.prescriber_user_id, name: nameOf(p.prescriber_title, p.prescriber_given_name, p.prescriber_family_name), prescriberNumber: p.prescriber_number, hpii },
    organization: { name: p.organization_name, hpio: p.organization_hpio, street: p.practice_street, suburb: p.practice_suburb, state: p.practice_state, postcode: p.practice_postcode, phone: p.practice_phone },
    patient: {
      name: nameOf(patient.title, patient.given_name, patient.family_name),
      dateOfBirth: patient.date_of_birth.slice(0, 10),
      address: addressOf(patient),
      medicareNumber: patient.medicare_card_number,
      medicareIrn: patient.medicare_irn,
      dvaFileNumber: patient.dva_file_number,
      ihi: patient.ihi_number ?? null,
    },
    medicine: {
      name: p.item_name, strength: p.item_strength, form: p.item_form, route: p.route_administration, pbsCode: p.pbs_code, schedule: p.schedule_number,
      quantity: p.quantity, repeats: p.number_of_repeats_authorised, repeatIntervalDays: p.repeat_intervals, directions: p.patient_instructions,
    },
    authority: { approvalOrStreamlinedCode: p.pbsdva_authority_number, phoneApprovalNumber: p.phone_approval_authority_number },
    brandSubstitutionNotPermitted: flags.brand_substitution_not_allowed === true,
    regulation24: flags.regulation_24 === true,
    annotations: p.annotations,
    controlledSubstanceReference: p.controlled_substance_reference,
  };
}

/** The legal content of a stored prescription and its patient's row (the caller records the read). */
export function readPrescriptionLegalContent(ctx: Pick<PrescriptionsContext, 'patients' | 'secretKey'>, prescription: PrescriptionRow, patient: PatientRow): PrescriptionLegalContent {
  return buildPrescriptionLegalContent({ prescription, patient: scriptIdentityOfPatient(ctx.patients, patient) }, ctx.secretKey);
}

/**
 * The legal content of the organization's prescription with this id (erx's unique id), for a
 * job that holds only the id (a PDS submission); undefined when there is none. Its patient is
 * live: a patient holding an Active prescription cannot be deleted.
 */
export async function loadPrescriptionLegalContent(ctx: Pick<PrescriptionsContext, 'db' | 'patients' | 'secretKey'>, organizationId: string, prescriptionId: string): Promise<PrescriptionLegalContent | undefined> {
  const prescription = await findPrescriptionById(ctx.db, organizationId, prescriptionId);
  if (!prescription) return undefined;
  return readPrescriptionLegalContent(ctx, prescription, await requirePatient(ctx.patients, organizationId, prescription.patient_id));
}
