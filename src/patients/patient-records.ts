// One in-memory shape of a patient (PatientRecord) between the request bodies and the table:
// national identifiers (IHI, Medicare, DVA, concession and entitlement numbers) and the phone
// and e-mail a token goes to are plain here and sealed with AES-256-GCM in the row.
import type { HiDemographics, HiSex, IhiFound, IhiRecordStatus, IhiSearchIdentifiers, IhiStatus } from '../hi-service/index.ts';
import { normaliseAustralianMobile } from '../identifiers/index.ts';
import type { PatientsTable } from '../platform/db/database-schema.ts';
import { decryptSecret, encryptSecret } from '../platform/secrets.ts';
import type { AustralianStreetAddress, InternationalAddress, PatientInputBody } from './patients-schemas.ts';
import type { PatientRow } from './patients-store.ts';

/** The patient input with the address alias folded into australian_street_address. */
export type PatientInput = Omit<PatientInputBody, 'australian_address'>;

export function normalisePatientInput(body: PatientInputBody): PatientInput {
  const { australian_address: alias, ...input } = body;
  const address = input.australian_street_address ?? alias;
  return address ? Object.assign(input, { australian_street_address: address }) : input;
}

export interface PatientRecord {
  given_name: string;
  family_name: string;
  date_of_birth: string;
  sex: HiSex;
  title: string | null;
  ihi_number: string | null;
  ihi_status: IhiStatus | null;
  ihi_record_status: IhiRecordStatus | null;
  medicare_card_number: string | null;
  medicare_irn: string | null;
  medicare_valid_to: string | null;
  dva_file_number: string | null;
  dva_card_color: string | null;
  concession_pension_number: string | null;
  entitlement_number: string | null;
  racf_id: string | null;
  ctg_eligible: boolean | null;
  indigenous_type: string | null;
  is_inpatient: boolean | null;
  email: string | null;
  phone: string | null;
  australian_street_address: AustralianStreetAddress | null;
  international_address: InternationalAddress | null;
}

const SEARCH_FIELDS = [
  'ihi_number',
  'medicare_card_number',
  'medicare_irn',
  'dva_file_number',
  'phone',
  'email',
  'australian_street_address',
  'international_address',
] as const satisfies ReadonlyArray<keyof IhiSearchIdentifiers>;

/** The identifiers the HI Service is searched on (only those present). */
export function identifiersOf(source: { [K in (typeof SEARCH_FIELDS)[number]]?: IhiSearchIdentifiers[K] | null }): IhiSearchIdentifiers {
  const identifiers: Record<string, unknown> = {};
  for (const field of SEARCH_FIELDS) {
    if (source[field] != null) identifiers[field] = source[field];
  }
  return identifiers as IhiSearchIdentifiers;
}

export function demographicsOf(source: HiDemographics): HiDemographics {
  return { family_name: source.family_name, given_name: source.given_name, date_of_birth: source.date_of_birth, sex: source.sex };
}

/** A new patient's record: the IHI is the one the HI Service returned, never the body's own. */
export function recordFromInput(input: PatientInput, found: IhiFound | undefined): PatientRecord {
  return {
    given_name: input.given_name.trim(),
    family_name: input.family_name.trim(),
    date_of_birth: input.date_of_birth,
    sex: input.sex,
    title: null,
    ...ihiFieldsOf(found),
    medicare_card_number: input.medicare_card_number ?? null,
    medicare_irn: input.medicare_irn ?? null,
    medicare_valid_to: input.medicare_valid_to ?? null,
    dva_file_number: input.dva_file_number ?? null,
    dva_card_color: input.dva_card_color ?? null,
    concession_pension_number: input.concession_pension_number ?? null,
    entitlement_number: input.entitlement_number ?? null,
    racf_id: input.racf_id ?? null,
    ctg_eligible: input.ctg_eligible ?? null,
    indigenous_type: input.indigenous_type ?? null,
    is_inpatient: null,
    email: input.email ?? null,
    phone: input.phone ?? null,
    australian_street_address: input.australian_street_address ?? null,
    international_address: input.international_address ?? null,
  };
}

export function ihiFieldsOf(found: IhiFound | undefined): Pick<PatientRecord, 'ihi_number' | 'ihi_status' | 'ihi_record_status'> {
  return {
    ihi_number: found?.ihi_number ?? null,
    ihi_status: found?.ihi_status ?? null,
    ihi_record_status: found?.ihi_record_status ?? null,
  };
}

const seal = (value: string | null, key: Buffer) => (value === null ? null : encryptSecret(value, key));
const unseal = (value: string | null, key: Buffer) => (value === null ? null : decryptSecret(value, key));
const flag = (value: boolean | null) => (value === null ? null : value ? 1 : 0);
const json = (value: object | null) => (value === null ? null : JSON.stringify(value));

/** The columns a record occupies; identity columns and timestamps are the caller's. */
export type PatientColumns = Omit<
  PatientsTable,
  | 'id'
  | 'organization_id'
  | 'partner_id'
  | 'partner_patient_id'
  | 'source'
  | 'created_by_user_id'
  | 'ihi_verified_at'
  | 'created_at'
  | 'updated_at'
  | 'deleted_at'
  | 'deleted_by_user_id'
>;

export function columnsOf(record: PatientRecord, secretKey: Buffer): PatientColumns {
  const {
    ihi_number,
    phone,
    email,
    medicare_card_number,
    dva_file_number,
    concession_pension_number,
    entitlement_number,
    ctg_eligible,
    is_inpatient,
    australian_street_address,
    international_address,
    ...plain
  } = record;
  return {
    ...plain,
    ihi_number_encrypted: seal(ihi_number, secretKey),
    medicare_card_number_encrypted: seal(medicare_card_number, secretKey),
    dva_file_number_encrypted: seal(dva_file_number, secretKey),
    concession_pension_number_encrypted: seal(concession_pension_number, secretKey),
    entitlement_number_encrypted: seal(entitlement_number, secretKey),
    phone_encrypted: seal(phone === null ? null : (normaliseAustralianMobile(phone) ?? phone), secretKey),
    email_encrypted: seal(email, secretKey),
    ctg_eligible: flag(ctg_eligible),
    is_inpatient: flag(is_inpatient),
    australian_street_address: json(australian_street_address),
    international_address: json(international_address),
  };
}

export function recordOfRow(row: PatientRow, secretKey: Buffer): PatientRecord {
  const parse = <T>(value: string | null) => (value === null ? null : (JSON.parse(value) as T));
  return {
    given_name: row.given_name,
    family_name: row.family_name,
    date_of_birth: row.date_of_birth,
    sex: row.sex as HiSex,
    title: row.title,
    ihi_number: unseal(row.ihi_number_encrypted, secretKey),
    ihi_status: row.ihi_status,
    ihi_record_status: row.ihi_record_status,
    medicare_card_number: unseal(row.medicare_card_number_encrypted, secretKey),
    medicare_irn: row.medicare_irn,
    medicare_valid_to: row.medicare_valid_to,
    dva_file_number: unseal(row.dva_file_number_encrypted, secretKey),
    dva_card_color: row.dva_card_color,
    concession_pension_number: unseal(row.concession_pension_number_encrypted, secretKey),
    entitlement_number: unseal(row.entitlement_number_encrypted, secretKey),
    racf_id: row.racf_id,
    ctg_eligible: row.ctg_eligible === null ? null : row.ctg_eligible === 1,
    indigenous_type: row.indigenous_type,
    is_inpatient: row.is_inpatient === null ? null : row.is_inpatient === 1,
    ...contactOfPatient({ secretKey }, row),
    australian_street_address: parse<AustralianStreetAddress>(row.australian_street_address),
    international_address: parse<InternationalAddress>(row.international_address),
  };
}

/** The phone and e-mail a patient's token may go to, opened from the row. */
export function contactOfPatient(ctx: { secretKey: Buffer }, row: Pick<PatientRow, 'phone_encrypted' | 'email_encrypted'>): { phone: string | null; email: string | null } {
  return { phone: unseal(row.phone_encrypted, ctx.secretKey), email: unseal(row.email_encrypted, ctx.secretKey) };
}
