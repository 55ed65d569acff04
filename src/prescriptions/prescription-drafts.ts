// The approval queue. A queue manager prepares a prescription for a named prescriber of the
// organization: the body is judged as a create would judge it for that prescriber and patient,
// and kept, validated, as a JSON document (the create path's own input, so fields the create
// path gains need nothing here). A waiting draft has no SCID and sends no event. Its
// prescriber approves it, which hands the body back to readAndPrescribe (the create path of
// every entry point: the same rules, the prescription.created event, the SCID, the audit
// entry), with the draft's decision committed in the prescription's own transaction; or
// declines it with a reason, which the queue manager is shown. A draft is decided once: the
// decision is a conditional update, so of two racing decisions one wins and the other is told
// what happened. Someone else's draft, or another organization's, is not found (404).
import { referenceOf } from './prescription-view.ts';
import { auditRecords } from '../audit/index.ts';
import { requirePatient } from '../patients/index.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError, notFound } from '../platform/http/api-error.ts';
import { bodyFields, type BodyRead, type FieldError, type SubmittedBody } from '../platform/http/body-validation.ts';
import { newId } from '../platform/ids.ts';
import { decryptSecret, encryptSecret } from '../platform/secrets.ts';
import { listReadyPrescribers, readPrescriberProfile, type CallerOrganization } from '../users/index.ts';
import type { ReservedValues } from './prescription-events.ts';
import { decideDraft, findDraftOfUser, insertDraft, listDraftsOfUser, type DraftListing } from './prescription-drafts-store.ts';
import { readAndPrescribe } from './prescription-create.ts';
import { judgePrescribeBody, refusedAsResult, requireReadyPrescriber, type PrescribingResult, type PrescriptionsContext } from './prescriptions-service.ts';
import { describeMedicine } from './token-page-view.ts';

/** Who acts on the queue: a user of an organization (a portal session is one). */
export interface DraftCaller extends CallerOrganization {
  userId: string;
}

export const DRAFT_NOT_FOUND = 'Draft not found';
export const DECLINE_REASON_MAX_LENGTH = 500;
/** Drafts the queue lists at once, newest first. */
export const DRAFTS_LISTED = 200;

const RESERVED = ['reserved_1', 'reserved_2', 'reserved_3'] as const;

export interface DraftView {
  draftId: string;
  status: 'waiting' | 'approved' | 'declined';
  patient: { patientId: string; name: string; dateOfBirth: string };
  medicine: string;
  /** The stored prescribe body (quantity, repeats, instructions, delivery...), as the create path reads it. */
  body: Record<string, unknown>;
  prescriber: { userId: string; name: string };
  preparedBy: { userId: string; name: string };
  declineReason: string | null;
  scid: string | null;
  createdAt: string;
  decidedAt: string | null;
}

/** The stored body, sealed under the secret key (it holds the delivery and the prescriber's notes). */
const bodyOfDraft = (row: DraftListing, secretKey: Buffer) => JSON.parse(decryptSecret(row.body_encrypted, secretKey)) as Record<string, unknown>;

function viewOfDraft(row: DraftListing, secretKey: Buffer): DraftView {
  return {
    draftId: row.id,
    status: row.status,
    patient: { patientId: row.patient_id, name: `${row.patient_given_name} ${row.patient_family_name}`, dateOfBirth: row.patient_date_of_birth.slice(0, 10) },
    medicine: row.medicine,
    body: bodyOfDraft(row, secretKey),
    prescriber: { userId: row.prescriber_user_id, name: row.prescriber_name },
    preparedBy: { userId: row.prepared_by_user_id, name: row.prepared_by_name },
    declineReason: row.decline_reason,
    scid: row.scid,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

const issue = (field: string, message: string, code: FieldError['code'] = 'VALIDATION_ERROR'): FieldError => ({ field, message, code });

/** The prescriber a draft is for: one of the organization's users who can prescribe now, else the issue. */
async function judgePrescriber(ctx: PrescriptionsContext, caller: DraftCaller, sent: string): Promise<{ prescriberId?: string; issues: FieldError[] }> {
  if (sent === '') return { issues: [issue('for_prescriber', 'Choose the prescriber who will approve it.', 'REQUIRED_FIELD')] };
  const ready = await listReadyPrescribers(ctx.users, caller);
  const found = ready.find((profile) => profile.user_id === sent.toLowerCase());
  if (!found) return { issues: [issue('for_prescriber', 'is not a prescriber of your organization who can prescribe now.')] };
  return { prescriberId: found.user_id, issues: [] };
}

/**
 * Judges the body as a create for `prescriberId` and the patient would, and stores it as a
 * waiting draft (with its audit entry); or returns every field error (for_prescriber among them).
 */
export async function prepareDraft(
  ctx: PrescriptionsContext,
  caller: DraftCaller,
  ids: { patientId: string; prescriberId: string },
  submitted: SubmittedBody,
): Promise<BodyRead<{ draftId: string }>> {
  const patient = await requirePatient(ctx.patients, caller.organizationId, ids.patientId);
  const prescriber = await judgePrescriber(ctx, caller, ids.prescriberId);
  const fields = bodyFields(submitted);
  const drugOwner = prescriber.prescriberId ?? caller.userId;
  const read = await judgePrescribeBody(ctx, { organizationId: caller.organizationId, prescriberId: drugOwner }, patient, submitted);
  const errors = [...prescriber.issues, ...(read.ok ? [] : read.errors)];
  if (!read.ok || prescriber.prescriberId === undefined) return { ok: false, errors };
  const body = Object.fromEntries(Object.entries(fields).filter(([name]) => !(RESERVED as readonly string[]).includes(name)));
  const draftId = newId();
  const prescriberId = prescriber.prescriberId;
  await ctx.unitOfWork.run(async (work) => {
    await insertDraft(work.trx, {
      id: draftId,
      organization_id: caller.organizationId,
      patient_id: patient.id,
      prescriber_user_id: prescriberId,
      prepared_by_user_id: caller.userId,
      status: 'waiting',
      body_encrypted: encryptSecret(JSON.stringify(body), ctx.secretKey),
      medicine: describeMedicine(read.value.item),
      created_at: ctx.clock.now().toISOString(),
    });
    work.record(auditRecords, { action: 'prescription.draft_prepare', organizationId: caller.organizationId, patientId: patient.id, targetUserId: prescriberId, detail: { subjectId: draftId } });
  });
  return { ok: true, value: { draftId } };
}

/** The drafts the caller prepared or that are named to them, newest first. */
export async function listDrafts(ctx: PrescriptionsContext, caller: DraftCaller): Promise<DraftView[]> {
  const rows = await listDraftsOfUser(ctx.db, caller.organizationId, caller.userId, DRAFTS_LISTED);
  await ctx.audit.noteAccess({ action: 'prescription.draft_list', organizationId: caller.organizationId, detail: { count: rows.length } });
  return rows.map((row) => viewOfDraft(row, ctx.secretKey));
}

async function requireDraft(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string): Promise<DraftListing> {
  const row = await findDraftOfUser(ctx.db, caller.organizationId, caller.userId, draftId.toLowerCase());
  if (!row) throw notFound(DRAFT_NOT_FOUND);
  return row;
}

/** One draft the caller prepared or that is named to them (404 otherwise). */
export async function readDraft(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string): Promise<DraftView> {
  const row = await requireDraft(ctx, caller, draftId);
  await ctx.audit.noteAccess({ action: 'prescription.draft_read', organizationId: caller.organizationId, patientId: row.patient_id, detail: { subjectId: row.id } });
  return viewOfDraft(row, ctx.secretKey);
}

/** A draft named to the caller (one they only prepared is not theirs to decide: 404, as another's). */
async function requireDraftNamedTo(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string): Promise<DraftListing> {
  const row = await requireDraft(ctx, caller, draftId);
  if (row.prescriber_user_id !== caller.userId) throw notFound(DRAFT_NOT_FOUND);
  return row;
}

function alreadyDecided(row: Pick<DraftListing, 'status' | 'scid'>): ApiError {
  const what = row.status === 'approved' ? `approved: it is prescription ${row.scid ?? ''}`.trim() : 'declined';
  return new ApiError('CONFLICT', `This draft was already ${what}. A draft is approved or declined once.`);
}

/** Inside a decision's transaction: moves the draft, or refuses with what decided it first. */
async function settleDraft(trx: Kysely<Database>, row: DraftListing, decision: Parameters<typeof decideDraft>[2]): Promise<void> {
  if (await decideDraft(trx, row.id, decision)) return;
  const now = await findDraftOfUser(trx, row.organization_id, row.prescriber_user_id, row.id);
  throw alreadyDecided(now ?? row);
}

/**
 * Approves a draft named to the caller: its body (with the caller's reserved values, for the
 * event) goes through the create path, and the draft is settled in the same transaction. A body
 * the create path now refuses (a drug since deleted) comes back as its field errors; a draft
 * decided already, or a prescriber who cannot prescribe, as refused.
 */
export async function approveDraft(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string, reserved: ReservedValues): Promise<PrescribingResult<{ scid: string; patientId: string }>> {
  return refusedAsResult(() => approve(ctx, caller, draftId, reserved));
}

async function approve(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string, reserved: ReservedValues): Promise<BodyRead<{ scid: string; patientId: string }>> {
  const row = await requireDraftNamedTo(ctx, caller, draftId);
  if (row.status !== 'waiting') throw alreadyDecided(row);
  const body = { ...bodyOfDraft(row, ctx.secretKey), ...reserved };
  const read = await readAndPrescribe(ctx, caller, { userId: caller.userId, patientId: row.patient_id }, { value: body, issues: [] }, async (work, created) => {
    const at = ctx.clock.now().toISOString();
    await settleDraft(work.trx, row, { status: 'approved', scid: created.scid, decline_reason: null, decided_by_user_id: caller.userId, decided_at: at });
    const entry = { organizationId: caller.organizationId, patientId: row.patient_id, scid: created.scid, targetUserId: row.prepared_by_user_id, detail: { subjectId: row.id } };
    work.record(auditRecords, { action: 'prescription.draft_approve', ...entry });
  });
  return read.ok ? { ok: true, value: { scid: referenceOf(read.value), patientId: row.patient_id } } : read;
}

/** Declines a draft named to the caller, with the reason the queue manager is shown (required); a draft decided already is refused. */
export async function declineDraft(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string, submitted: SubmittedBody): Promise<PrescribingResult<{ draftId: string }>> {
  return refusedAsResult(() => decline(ctx, caller, draftId, submitted));
}

async function decline(ctx: PrescriptionsContext, caller: DraftCaller, draftId: string, submitted: SubmittedBody): Promise<BodyRead<{ draftId: string }>> {
  const row = await requireDraftNamedTo(ctx, caller, draftId);
  requireReadyPrescriber(await readPrescriberProfile(ctx.users, caller, caller.userId));
  if (row.status !== 'waiting') throw alreadyDecided(row);
  const sent = bodyFields(submitted).reason;
  const reason = typeof sent === 'string' ? sent.trim() : '';
  if (reason === '') return { ok: false, errors: [issue('reason', 'Enter the reason for declining: the queue manager is shown it.', 'REQUIRED_FIELD')] };
  if ([...reason].length > DECLINE_REASON_MAX_LENGTH) return { ok: false, errors: [issue('reason', `must be at most ${DECLINE_REASON_MAX_LENGTH} characters`)] };
  await ctx.unitOfWork.run(async (work) => {
    const at = ctx.clock.now().toISOString();
    await settleDraft(work.trx, row, { status: 'declined', scid: null, decline_reason: reason, decided_by_user_id: caller.userId, decided_at: at });
    // The reason is the prescriber's free text: the entry names the draft, never its words.
    work.record(auditRecords, { action: 'prescription.draft_decline', organizationId: caller.organizationId, patientId: row.patient_id, targetUserId: row.prepared_by_user_id, detail: { subjectId: row.id } });
  });
  return { ok: true, value: { draftId: row.id } };
}
