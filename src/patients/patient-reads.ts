// Reading one patient (the vendor's "Read Patient"), and the patient lookups other features
// build on: prescriptions are always of a live patient of the caller's organization. What is
// shown to a caller is a read in the audit trail (readPatient, showPatient, the portal's search);
// the lookups other features make on their way to their own records are theirs to record.
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { patientNotFound } from '../platform/http/api-error.ts';
import { isUuid } from '../platform/ids.ts';
import { requireOrganizationUser } from '../users/index.ts';
import { recordOfRow, type PatientRecord } from './patient-records.ts';
import type { PatientData } from './patients-schemas.ts';
import type { PatientsContext } from './patients-service.ts';
import { findPatientById, findPatientsByPartnerPatientId, lockLivePatient, type PatientRow } from './patients-store.ts';

/** A stored patient, as the reads return it. */
export type { PatientRow };

/** The organization's live patient with this id (a platform_patient_id); 404 patient-not-found otherwise, another organization's too. */
export async function requirePatient(ctx: PatientsContext, organizationId: string, patientId: string): Promise<PatientRow> {
  const row = isUuid(patientId) ? await findPatientById(ctx.db, organizationId, patientId.toLowerCase()) : undefined;
  if (!row) throw patientNotFound(`No patient ${patientId} in this organization`);
  return row;
}

/**
 * The organization's live patients holding the partner's own id for them (normally one; none
 * when unknown), as a search shown to the caller: a `patient.list` entry with how many it found.
 */
export async function findPatientsOfPartnerId(ctx: PatientsContext, organizationId: string, partnerPatientId: string): Promise<PatientRow[]> {
  const rows = await findPatientsByPartnerPatientId(ctx.db, organizationId, partnerPatientId);
  await ctx.audit.noteAccess({ action: 'patient.list', patientId: rows.length === 1 ? rows[0]!.id : null, detail: { count: rows.length } });
  return rows;
}

/** requirePatient for a page that shows the patient: a `patient.read` entry. */
export async function showPatient(ctx: PatientsContext, organizationId: string, patientId: string): Promise<PatientRow> {
  const row = await requirePatient(ctx, organizationId, patientId);
  await ctx.audit.noteAccess({ action: 'patient.read', patientId: row.id });
  return row;
}

/**
 * A page showed these patients, found through something else (a prescription, a draft, the
 * approval queue): a `patient.read` entry each, as the patient's own page writes (issue 38 item 4).
 */
export async function notePatientsShown(ctx: PatientsContext, patientIds: readonly string[]): Promise<void> {
  for (const patientId of new Set(patientIds)) await ctx.audit.noteAccess({ action: 'patient.read', patientId });
}

/** Inside a transaction that adds to a patient: 404 when it was deleted meanwhile (see lockLivePatient). */
export async function requirePatientStillLive(trx: Kysely<Database>, patient: Pick<PatientRow, 'id' | 'organization_id'>): Promise<void> {
  if (!(await lockLivePatient(trx, patient.organization_id, patient.id))) throw patientNotFound(`No patient ${patient.id} in this organization`);
}

/** Fields of the record shown as they are, when set. */
const PLAIN_FIELDS = [
  'title', 'medicare_card_number', 'medicare_irn', 'medicare_valid_to', 'dva_file_number', 'dva_card_color',
  'concession_pension_number', 'entitlement_number', 'racf_id', 'ctg_eligible', 'indigenous_type', 'is_inpatient',
  'email', 'phone', 'australian_street_address', 'international_address', 'ihi_status', 'ihi_record_status',
] as const satisfies ReadonlyArray<keyof PatientRecord & keyof PatientData>;

export function viewOfPatient(row: PatientRow, record: PatientRecord): PatientData {
  const data: PatientData = {
    platform_patient_id: row.id,
    partner_patient_id: row.partner_patient_id,
    partner_id: row.partner_id,
    given_name: record.given_name,
    family_name: record.family_name,
    date_of_birth: record.date_of_birth,
    sex: record.sex,
    has_ihi: record.ihi_number !== null,
  };
  const view = data as Record<string, unknown>;
  for (const field of PLAIN_FIELDS) if (record[field] !== null) view[field] = record[field];
  return data;
}

export async function readPatient(ctx: PatientsContext, principal: Principal, ids: { userId: string; patientId: string }): Promise<PatientData> {
  await requireOrganizationUser(ctx.users, principal, ids.userId);
  const row = await showPatient(ctx, principal.organizationId, ids.patientId);
  return viewOfPatient(row, recordOfRow(row, ctx.secretKey));
}

/** What a prescription states of its patient (the PDF of a paper one; a PDS submission): names, date of birth, address, Medicare and DVA numbers. */
export interface PatientScriptIdentity {
  title: string | null;
  given_name: string;
  family_name: string;
  date_of_birth: string;
  australian_street_address: PatientRecord['australian_street_address'];
  international_address: PatientRecord['international_address'];
  medicare_card_number: string | null;
  medicare_irn: string | null;
  dva_file_number: string | null;
  dva_card_color: string | null;
  /** The IHI a PDS submission identifies the patient by. */
  ihi_number: string | null;
}

/** The patient's identity as a script states it, its national identifiers unsealed (the caller records the read). */
export function scriptIdentityOfPatient(ctx: Pick<PatientsContext, 'secretKey'>, row: PatientRow): PatientScriptIdentity {
  const record = recordOfRow(row, ctx.secretKey);
  const { title, given_name, family_name, date_of_birth, australian_street_address, international_address, medicare_card_number, medicare_irn, dva_file_number, dva_card_color, ihi_number } = record;
  return { title, given_name, family_name, date_of_birth, australian_street_address, international_address, medicare_card_number, medicare_irn, dva_file_number, dva_card_color, ihi_number };
}
