// Update patient: a partial update (only the fields sent change; null clears a nullable
// one). Changing a name, the date of birth or the sex, or sending a different IHI, re-runs
// the IHI verification before anything is saved; each call it makes to the HI Service is
// noted for the audit trail, and the update is recorded in its unit of work.
import { auditRecords } from '../audit/index.ts';
import { ApiError, invalidRequest, validationFailed, type ValidationIssue } from '../platform/http/api-error.ts';
import type { Principal } from '../auth/index.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import type { IhiFound } from '../hi-service/index.ts';
import { labelOfPath, fieldOfPath, planIhiSearch, runIhiSearch, type IhiSearchRun, type SearchAttempt } from './ihi-search.ts';
import { noteIhiSearches } from './ihi-search-audit.ts';
import { readPatientUpdateBody } from './patient-input-checks.ts';
import { requireOrganizationUser } from '../users/index.ts';
import type { PatientsContext } from './patients-service.ts';
import { columnsOf, demographicsOf, identifiersOf, ihiFieldsOf, recordOfRow, type PatientRecord } from './patient-records.ts';
import { DVA_CARD_COLOR_CODES, INDIGENOUS_TYPE_LABELS, type PatientUpdateBody, type PatientUpdatedData } from './patients-schemas.ts';
import { requirePatient } from './patient-reads.ts';
import { updatePatientRow, type PatientRow } from './patients-store.ts';

const DEMOGRAPHIC_FIELDS = ['family_name', 'given_name', 'date_of_birth', 'sex'] as const;

/** Body fields copied as they are (after the alias and spellings below). */
const COPIED_FIELDS = [
  'date_of_birth', 'sex', 'title', 'ihi_number', 'medicare_card_number', 'medicare_irn', 'medicare_valid_to',
  'dva_file_number', 'concession_pension_number', 'entitlement_number', 'racf_id', 'ctg_eligible',
  'is_inpatient', 'email', 'phone', 'australian_street_address', 'international_address',
] as const satisfies ReadonlyArray<keyof PatientUpdateBody & keyof PatientRecord>;

type Changes = Partial<PatientRecord>;

function changesOf(body: PatientUpdateBody): Changes {
  const changes: Record<string, unknown> = {};
  for (const field of COPIED_FIELDS) if (body[field] !== undefined) changes[field] = body[field];
  if (body.given_name !== undefined) changes.given_name = body.given_name.trim();
  if (body.family_name !== undefined) changes.family_name = body.family_name.trim();
  if (body.australian_address !== undefined) changes.australian_street_address = body.australian_address;
  const color = body.dva_card_color;
  if (color !== undefined) changes.dva_card_color = color === null ? null : (DVA_CARD_COLOR_CODES[color as keyof typeof DVA_CARD_COLOR_CODES] ?? color);
  const indigenous = body.indigenous_type;
  if (indigenous !== undefined) changes.indigenous_type = INDIGENOUS_TYPE_LABELS[indigenous as keyof typeof INDIGENOUS_TYPE_LABELS] ?? indigenous;
  if (body.ihi_number === null) Object.assign(changes, ihiFieldsOf(undefined));
  return changes as Changes;
}

// A card colour needs a file number, sent now or already stored. Read from the raw body so it
// joins the schema failures in the same 422.
function checkDvaPair(body: Record<string, unknown>, stored: PatientRecord): ValidationIssue[] {
  const color = 'dva_card_color' in body ? body.dva_card_color : stored.dva_card_color;
  const file = 'dva_file_number' in body ? body.dva_file_number : stored.dva_file_number;
  if (color == null || file != null) return [];
  return [{ field: 'dva_file_number', message: 'is required when dva_card_color is set', code: 'REQUIRED_FIELD' }];
}

function needsReverification(stored: PatientRecord, changes: Changes): boolean {
  const demographicsChanged = DEMOGRAPHIC_FIELDS.some((field) => changes[field] !== undefined && changes[field] !== stored[field]);
  const newIhi = changes.ihi_number != null && changes.ihi_number !== stored.ihi_number;
  return demographicsChanged || newIhi;
}

/**
 * Searches the merged record's identifiers (its stored or new IHI first) with its new
 * demographics, under create's rules. Returns the IHI the patient holds afterwards:
 * - found with a VERIFIED record: that IHI (it may differ from the one held before);
 * - no identifier finds a record: none. The stored IHI is removed (has_ihi becomes false)
 *   rather than kept beside demographics the HI Service no longer confirms for it, and the
 *   update is saved, since the partner's system owns the demographics;
 * - found but not VERIFIED: 422 HI_SERVICE_NOT_VERIFIED, nothing saved (as create refuses);
 * - HI Service unreachable: 503, nothing saved; organization without HPI-O: 400.
 */
async function reverifyIhi(ctx: PatientsContext, caller: { organizationHpio: string | null; userId: string }, patientId: string, record: PatientRecord): Promise<IhiFound | undefined> {
  const hpio = caller.organizationHpio;
  if (hpio === null) {
    throw invalidRequest('The organization has no HPI-O configured; the IHI cannot be verified until the operator links one');
  }
  const identifiers = identifiersOf(record);
  const plan = planIhiSearch(identifiers);
  if (plan.runnable.length === 0) return undefined;
  const attempts: SearchAttempt[] = [];
  let run: IhiSearchRun;
  try {
    run = await runIhiSearch(ctx.hiService, { hpio, userId: caller.userId }, identifiers, demographicsOf(record), plan.runnable, attempts, ctx.startHiBudget());
  } finally {
    await noteIhiSearches(ctx.audit, attempts, identifiers, patientId);
  }
  if (run.kind === 'unreachable') throw new ApiError('SERVICE_UNAVAILABLE', 'The HI Service is unreachable; retry later');
  if (run.kind === 'no_match') return undefined;
  if (run.found.ihi_record_status === 'VERIFIED') return run.found;
  const status = run.found.ihi_record_status ?? 'not returned';
  const message = `the IHI found using the ${labelOfPath(run.searchedPath)} has record status ${status}; the update can be applied once the record is verified`;
  throw validationFailed([{ field: fieldOfPath(run.searchedPath), message, code: 'HI_SERVICE_NOT_VERIFIED' }], 'The IHI record is not verified');
}

const OPTIONAL_VIEW_FIELDS = ['title', 'phone', 'email', 'ihi_status', 'ihi_record_status'] as const;

// National identifiers stay out of the answer: the partner sent them, and echoing them
// would only widen where they travel.
function viewOfUpdated(row: PatientRow, record: PatientRecord, reverified: boolean): PatientUpdatedData {
  const data: PatientUpdatedData = {
    patient_id: row.id,
    platform_patient_id: row.id,
    partner_patient_id: row.partner_patient_id,
    given_name: record.given_name,
    family_name: record.family_name,
    date_of_birth: record.date_of_birth,
    sex: record.sex,
    has_ihi: record.ihi_number !== null,
    ihi_reverified: reverified,
  };
  const view = data as Record<string, unknown>;
  for (const field of OPTIONAL_VIEW_FIELDS) if (record[field] !== null) view[field] = record[field];
  return data;
}

export async function updatePatient(
  ctx: PatientsContext,
  principal: Principal,
  ids: { userId: string; patientId: string },
  submitted: SubmittedBody,
): Promise<PatientUpdatedData> {
  const organizationId = principal.organizationId;
  await requireOrganizationUser(ctx.users, principal, ids.userId);
  const row = await requirePatient(ctx, organizationId, ids.patientId);
  const stored = recordOfRow(row, ctx.secretKey);
  const body = readPatientUpdateBody(submitted, ctx.clock.now());
  // The DVA pair is judged against the stored record, after the body's own checks (and their cap).
  const dvaErrors = checkDvaPair(bodyFields(submitted), stored);
  if (!body.ok || dvaErrors.length > 0) throw validationFailed([...(body.ok ? [] : body.errors), ...dvaErrors]);
  const changes = changesOf(body.value);
  if (Object.keys(changes).length === 0) throw invalidRequest('The body has no updatable fields');
  const merged: PatientRecord = Object.assign({}, stored, changes);
  const reverified = needsReverification(stored, changes);
  const record = reverified ? Object.assign({}, merged, ihiFieldsOf(await reverifyIhi(ctx, principal, row.id, merged))) : merged;
  const now = ctx.clock.now().toISOString();
  await ctx.unitOfWork.run(async (work) => {
    await updatePatientRow(work.trx, organizationId, row.id, {
      ...columnsOf(record, ctx.secretKey),
      ihi_verified_at: record.ihi_number === null ? null : reverified ? now : row.ihi_verified_at,
      updated_at: now,
    });
    work.record(auditRecords, { action: 'patient.update', patientId: row.id });
  });
  return viewOfUpdated(row, record, reverified);
}
