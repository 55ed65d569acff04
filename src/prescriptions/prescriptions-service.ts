// Prescriptions: the context every prescription operation runs in, the checks they share (the
// acting prescriber, the patient, the SCID), and creating a prescription. Ceasing, cancelling
// and reissuing are in prescription-changes.ts, the read calls in prescription-reads.ts. Every
// entry point (the sandbox test helpers and the portal) calls these, so the same rules
// hold and the same events are written whichever way a prescriber acts.
import type { Kysely } from 'kysely';
import type { AuditTrail } from '../audit/index.ts';
import { findPrescribableDrug, type CustomDrugsContext } from '../custom-drugs/index.ts';
import { contactOfPatient, requirePatient, requirePatientStillLive, type PatientsContext, type PatientRow } from '../patients/index.ts';
import type { Clock } from '../platform/clock.ts';
import { isUniqueViolation } from '../platform/db/database.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork, Work } from '../platform/db/unit-of-work.ts';
import { ApiError, invalidRequest } from '../platform/http/api-error.ts';
import { bodyFields, valueOrRefuse, type BodyRead, type SubmittedBody } from '../platform/http/body-validation.ts';
import { newId } from '../platform/ids.ts';
import type { Deps } from '../deps.ts';
import { readPrescriberProfile, type CallerOrganization, type PrescriberProfile, type UsersContext } from '../users/index.ts';
import type { OrganizationPractice } from '../onboarding/index.ts';
import { authorshipColumnsOf, requireCompletePractice, type AuthorshipColumns, type PracticeLookup } from './prescription-authorship.ts';
import { actingPartnerOfScope, noteRefusedAction, recordPrescriptionAction, type ReservedValues } from './prescription-events.ts';
import { TEXT_PATTERNS } from './prescription-fields.ts';
import { controlledFactsOf, readPrescribeBody, type PrescriptionDraft } from './prescription-input.ts';
import { judgeControlledMedicine, type ControlledJudgement, type StateRule } from '../controlled-medicines/index.ts';
import type { AustralianState } from '../platform/db/stored-values.ts';
import type { PbsLookup } from './prescription-rules.ts';
import { planTransition } from './prescription-lifecycle.ts';
import { sealedDeliveryOf } from './prescription-delivery.ts';
import { recordTokenMessage } from './prescription-token-message.ts';
import { viewOfPrescription } from './prescription-view.ts';
import { storedTokenPageKeyOf } from './token-page-keys.ts';
import type { Prescription } from './prescriptions-schemas.ts';
import { insertPrescription, takeNextPrescriberScriptNumber, type PrescriptionRow } from './prescriptions-store.ts';
import { isScidFormat, NO_PDS_REASON, type PdsSandbox } from '../pds/index.ts';
import { isUuid } from '../platform/ids.ts';
import { pdsSubmissions } from './pds-submission-outbox.ts';
import type { PdsSettings } from './pds-settings.ts';

export interface PrescriptionsContext {
  db: Kysely<Database>;
  clock: Clock;
  /** The service's external root: token pages are served there (the portal context). */
  publicUrl: string;
  /** Token page keys are derived from it (token-page-keys.ts). */
  secretKey: Buffer;
  users: UsersContext;
  patients: PatientsContext;
  customDrugs: CustomDrugsContext;
  /** The PBS Schedule's items, by code (the medicines feature). */
  pbs: PbsLookup;
  /** A change, its outbox event and its audit entry commit together through it. */
  unitOfWork: UnitOfWork;
  /** Where reads (the list, one prescription, the token page) are noted. */
  audit: AuditTrail;
  /** Every prescription states it (ERX_CONFORMANCE_ID). */
  conformanceId: string;
  /** The organizations' practice addresses and phones (prescription-authorship.ts). */
  practices: PracticeLookup;
  /** The Prescription Delivery Service prescriptions are submitted to (electronic ones, and paper ones while one is connected), and how (pds-submission.ts). */
  pds: PdsSettings;
  /** The sandbox PDS's dispense (undefined unless ERX_PDS=simulator). */
  pdsSandbox: PdsSandbox | undefined;
}

export function createPrescriptionsContext(
  deps: Pick<Deps, 'database' | 'clock' | 'config' | 'secretKey'>,
  features: {
    users: UsersContext;
    patients: PatientsContext;
    customDrugs: CustomDrugsContext;
    pbs: PbsLookup;
    practices: PracticeLookup;
    unitOfWork: UnitOfWork;
    audit: AuditTrail;
    pds: PdsSettings;
    pdsSandbox: PdsSandbox | undefined;
  },
): PrescriptionsContext {
  const { config } = deps;
  return { db: deps.database, clock: deps.clock, publicUrl: config.publicUrl, secretKey: deps.secretKey, conformanceId: config.conformanceId, ...features };
}

/**
 * Who acts, as far as prescriptions need to know: the caller's organization (with its HPI-O as
 * of this request). A bearer Principal is one, and so is a portal session; the acting
 * prescriber is the path's (or the session's) user.
 */
export type PrescribingCaller = CallerOrganization;

/** The ids a prescription route's path names. */
export interface PatientPath {
  userId: string;
  patientId: string;
}

/**
 * A SCID of the wrong form is refused (400) before anything is looked up; any 18 letters and
 * digits are looked up (the vendor's SCIDs carry no check character of ours). erx's own id of
 * the prescription (a UUID) is taken too: a Pending prescription has no SCID yet.
 */
export function readScid(text: string): string {
  if (isUuid(text)) return text.toLowerCase();
  const scid = text.toUpperCase();
  if (!isScidFormat(scid)) throw invalidRequest(`${JSON.stringify(text.slice(0, 40))} is not a SCID: 18 letters and digits`);
  return scid;
}

/** The path user (404 outside the organization) as a prescriber, then the patient (404 patient-not-found). */
export async function requirePrescriberAndPatient(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath) {
  const prescriber = await readPrescriberProfile(ctx.users, caller, ids.userId);
  const patient = await requirePatient(ctx.patients, caller.organizationId, ids.patientId);
  return { prescriber, patient };
}

/** 409 unless the acting user can prescribe (is_escript_ready.can_prescribe), naming what is missing. */
export function requireReadyPrescriber(prescriber: PrescriberProfile): void {
  if (prescriber.unmetConditions.length === 0) return;
  const unmet = prescriber.unmetConditions.join('; ');
  throw new ApiError('CONFLICT', `User ${prescriber.user_id} cannot prescribe (is_escript_ready.can_prescribe is false): not met: ${unmet}`);
}

/** The reserved_1..3 of a body, for the event's metadata. */
export function reservedOf(submitted: SubmittedBody): ReservedValues {
  const { reserved_1, reserved_2, reserved_3 } = bodyFields(submitted) as ReservedValues;
  return { reserved_1, reserved_2, reserved_3 };
}

function newPrescriptionRow(ctx: PrescriptionsContext, draft: PrescriptionDraft, writers: { prescriber: PrescriberProfile; authorship: AuthorshipColumns }, patient: PatientRow, at: string): PrescriptionRow {
  const { prescriber } = writers;
  const id = newId();
  return {
    id,
    // A SCID is the PDS's, once it accepted the prescription (DESIGN decision 25): a paper one no
    // PDS took has none, and is addressed by its id (legal_metadata.prescription_id) instead.
    scid: null,
    token: storedTokenPageKeyOf(id, ctx.secretKey),
    token_page_key_encrypted: null,
    organization_id: patient.organization_id,
    patient_id: patient.id,
    prescriber_user_id: prescriber.user_id,
    status: submitsToPds(ctx, draft.prescriptionType) ? 'Pending' : planTransition('create', null).to,
    prescription_type: draft.prescriptionType,
    ...draft.item,
    quantity: String(draft.quantity),
    number_of_repeats_authorised: String(draft.repeats),
    repeat_intervals: draft.repeatIntervalDays === null ? null : String(draft.repeatIntervalDays),
    ...draft.notes,
    ...draft.authority,
    doctor_notes: draft.doctor_notes,
    // Taken in the creating transaction (insertWithEvent).
    prescriber_script_number: '',
    flags: JSON.stringify(draft.flags),
    custom_drug_id: draft.customDrug?.custom_drug_id ?? null,
    custom_product_id: draft.customDrug?.custom_product_id ?? null,
    prescriber_title: prescriber.title,
    prescriber_given_name: prescriber.given_name,
    prescriber_family_name: prescriber.family_name,
    ...sealedDeliveryOf(draft.delivery, ctx.secretKey),
    error_description: null,
    created_at: at,
    updated_at: at,
    updated_by_user_id: prescriber.user_id,
    ...writers.authorship,
    supplies_dispensed: null,
    repeats_remaining: null,
    last_dispensed_at: null,
  };
}

/**
 * Whether a new prescription goes to the PDS: an electronic one always (none is refused before);
 * a paper one whenever a PDS is connected, so that it is an ETP paper script with the PDS's SCID
 * as its barcode. With ERX_PDS=none a paper one is plain paper, Active at once.
 */
function submitsToPds(ctx: PrescriptionsContext, type: PrescriptionDraft['prescriptionType']): boolean {
  return type === 'ELECTRONIC' || ctx.pds.port.name !== 'none';
}

const PBS_CODE = new RegExp(TEXT_PATTERNS.pbs_code.pattern, 'i');

/** Tries again when the prescriber's script number was taken meanwhile (a concurrent create of theirs). */
const INSERT_ATTEMPTS = 3;

/** More work a create must commit with (an approved draft settles in the prescription's transaction); `scid` is erx's id while the PDS has not assigned one. */
export type AlongsideCreate = (work: Work, created: { scid: string }) => Promise<void>;

/**
 * Inserts the prescription in one transaction; returns the row stored. One the PDS is to take
 * (electronic, or paper with a PDS connected) is Pending, its submission recorded beside it,
 * its audit entry, event and (electronic) token message written once the PDS accepted it
 * (pds-submission.ts); every failed attempt is audited as prescription.pds_submit. A plain
 * paper prescription (ERX_PDS=none) is Active at once, its audit entry and event with it.
 */
async function insertWithEvent(ctx: PrescriptionsContext, row: PrescriptionRow, patient: PatientRow, reserved: ReservedValues, alongside?: AlongsideCreate): Promise<PrescriptionRow> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.unitOfWork.run(async (work) => {
        await requirePatientStillLive(work.trx, patient);
        row = { ...row, prescriber_script_number: String(await takeNextPrescriberScriptNumber(work.trx, row.prescriber_user_id)) };
        await alongside?.(work, { scid: row.id });
        await insertPrescription(work.trx, row);
        if (row.status === 'Pending') {
          work.record(pdsSubmissions, { prescriptionId: row.id, organizationId: row.organization_id, reserved, actingPartnerId: actingPartnerOfScope() });
          return;
        }
        // Plain paper is written Active at once: its event names it by erx's id, as the read API takes it.
        await recordPrescriptionAction(ctx, work, 'create', { patient, actorId: row.prescriber_user_id, scid: row.id, reserved });
      });
      return row;
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === INSERT_ATTEMPTS) throw error;
    }
  }
}

/**
 * Reads a prescribe body as `prescriberId` writing for `patient` would: the custom drug from that
 * prescriber's reach, the PBS item from the schedule, and every field rule. The create path and
 * a draft's preparation both judge a body here.
 */
export async function judgePrescribeBody(
  ctx: PrescriptionsContext,
  owner: { organizationId: string; prescriberId: string },
  patient: PatientRow,
  submitted: SubmittedBody,
): Promise<ReturnType<typeof readPrescribeBody>> {
  const fields = bodyFields(submitted);
  const context = await prescribeContextOf(ctx, owner, patient, fields);
  const read = readPrescribeBody(submitted, context);
  if (!read.ok) await noteStateRuleRefusals(ctx, owner, patient, judgeControlledMedicine(controlledFactsOf(fields, context)));
  return read;
}

/** What a prescribe body is judged against: the custom drug or PBS item it names, the practice's state, the patient. */
async function prescribeContextOf(ctx: PrescriptionsContext, owner: { organizationId: string; prescriberId: string }, patient: PatientRow, fields: Record<string, unknown>) {
  const drugId = fields.custom_drug_id;
  const drug = typeof drugId === 'string' ? await findPrescribableDrug(ctx.customDrugs, owner.organizationId, owner.prescriberId, drugId) : undefined;
  const pbsCode = fields.pbs_code;
  const pbsItem = typeof pbsCode === 'string' && PBS_CODE.test(pbsCode) ? await ctx.pbs.findPbsItem(pbsCode.toUpperCase()) : undefined;
  const found = { drug, pbsItem };
  const practice = await ctx.practices.findPractice(owner.organizationId);
  // A date of birth counts as verified when the patient's IHI was found with a VERIFIED record (WA's S8 rule).
  const dateOfBirthVerified = patient.ihi_number_encrypted !== null && patient.ihi_record_status === 'VERIFIED';
  return { ...found, practiceState: practice?.state ?? null, patient: { ...patient, ...contactOfPatient(ctx.patients, patient), hasDvaFileNumber: patient.dva_file_number_encrypted !== null, dateOfBirthVerified } };
}

/** The state rules that refused a body, in the audit trail (the refusal itself is the 422 beside each field). */
async function noteStateRuleRefusals(ctx: PrescriptionsContext, owner: { organizationId: string; prescriberId: string }, patient: PatientRow, judgement: ControlledJudgement): Promise<void> {
  if (judgement.refusals.length === 0) return;
  const rules = judgement.refusals.map((refusal) => refusal.rule);
  await ctx.audit.noteAccess({ action: 'prescription.create', outcome: 'refused', organizationId: owner.organizationId, patientId: patient.id, targetUserId: owner.prescriberId, detail: { reason: 'state_rule', rules } });
}

/** What the state rules say of a prescribe body before it is written: the monitored medicine's rule and its state's RTPM system, and whether a step-up is needed. */
export async function readControlledStatus(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath, submitted: SubmittedBody): Promise<ControlledStatus> {
  const { prescriber, patient } = await requirePrescriberAndPatient(ctx, caller, ids);
  const fields = bodyFields(submitted);
  const context = await prescribeContextOf(ctx, { organizationId: caller.organizationId, prescriberId: prescriber.user_id }, patient, fields);
  const judgement = judgeControlledMedicine(controlledFactsOf(fields, context));
  return { state: context.practiceState, monitoredBy: judgement.monitoredBy, needsStepUp: judgement.needsStepUp, patient };
}

export interface ControlledStatus {
  state: AustralianState | null;
  monitoredBy: StateRule | undefined;
  needsStepUp: boolean;
  patient: PatientRow;
}

/**
 * What a prescribing action the portal makes comes to: done; the body's field errors (the API's
 * 422, each shown beside its field); or refused, saying why (the API's 409: the lifecycle, the
 * prescriber's readiness, the practice's details, a draft decided already, a change that lost a
 * race). The portal reads it; it never catches an error code.
 */
export type PrescribingResult<T> = BodyRead<T> | { ok: false; refused: string };

/** Runs a prescribing action, the 409 it throws returned as `refused`: the one place a refusal turns into a result. */
export async function refusedAsResult<T>(act: () => Promise<BodyRead<T>>): Promise<PrescribingResult<T>> {
  try {
    return await act();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'CONFLICT') return { ok: false, refused: error.detail };
    throw error;
  }
}

/**
 * Writes the prescription every entry point creates (the API, the portal, an approved draft),
 * as prescription-create.ts asks: a refused body is returned as its field errors, a refused
 * action (409) thrown. One the PDS is to take is written Pending; prescription-create.ts waits
 * for the PDS's answer.
 */
export async function writePrescription(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath,
  submitted: SubmittedBody,
  alongside?: AlongsideCreate,
): Promise<BodyRead<PrescriptionRow>> {
  const { prescriber, patient } = await requirePrescriberAndPatient(ctx, caller, ids);
  const read = await judgePrescribeBody(ctx, { organizationId: caller.organizationId, prescriberId: prescriber.user_id }, patient, submitted);
  if (!read.ok) return read;
  const draft = read.value;
  let practice: OrganizationPractice;
  try {
    requireReadyPrescriber(prescriber);
    if (draft.prescriptionType === 'ELECTRONIC' && ctx.pds.port.name === 'none') throw new ApiError('CONFLICT', `${NO_PDS_REASON}. Write it with prescription_type PAPER`);
    practice = await requireCompletePractice(ctx, caller.organizationId);
  } catch (error) {
    await noteRefusedAction(ctx, 'create', { patient, prescriberId: prescriber.user_id }, error);
    throw error;
  }
  const at = ctx.clock.now().toISOString();
  const writers = { prescriber, authorship: authorshipColumnsOf(ctx.conformanceId, prescriber, practice, ctx.secretKey) };
  return { ok: true, value: await insertWithEvent(ctx, newPrescriptionRow(ctx, draft, writers, patient, at), patient, reservedOf(submitted), alongside) };
}
