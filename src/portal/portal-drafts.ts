// The approval queue in the portal. A queue manager fills in the new-prescription form (the
// same form, with a "For prescriber" choice of the organization's users who can prescribe)
// and it is stored as a draft instead of created; the drafts wait on the approval page, where
// their prescriber approves one (it is created through the prescriptions service, with the
// prescriber's session reserved values) or declines it with a reason. Every form submits once
// (portal-forms-service.ts), and every decision is the prescriptions service's to refuse.
import { Type } from '@sinclair/typebox';
import { holdsCapability } from '../auth/index.ts';
import { notePatientsShown, requirePatient } from '../patients/index.ts';
import { bodyFields, type FieldError, type SubmittedBody } from '../platform/http/body-validation.ts';
import { approveDraft, declineDraft, DECLINE_REASON_MAX_LENGTH, listDrafts, prepareDraft, readDraft, type DraftView } from '../prescriptions/index.ts';
import { openNotificationOfForm, passRtpmGate, RTPM_OPEN_INTENT, rtpmFieldsOf, type RtpmPanel } from './portal-rtpm-gate.ts';
import type { PortalSession } from '../sso/index.ts';
import { listReadyPrescribers } from '../users/index.ts';
import { formIdOfAddress, issueFormId, submitOnce, type FormAttempt } from './portal-forms-service.ts';
import { formPageOf, prescribeBodyOfForm, type FormPage } from './portal-prescribing.ts';
import { EMPTY_FORM, formErrorsOf, PrescriptionFormBody, readFormValues, readPrefill, type FormValues } from './prescription-form.ts';
import type { Choice } from './prescription-choices.ts';
import type { PortalContext } from './portal-service.ts';

/** What the draft form posts: the prescription form's fields and the prescriber it is for. */
export const DraftFormBody = Type.Composite([PrescriptionFormBody, Type.Object({ for_prescriber: Type.Optional(Type.String({ maxLength: 100 })) })]);

export const DecisionForm = Type.Object({
  form_id: Type.Optional(Type.String({ maxLength: 100 })),
  /** The monitoring gate of a monitored medicine, on the approval form (portal-rtpm-gate.ts). */
  intent: Type.Optional(Type.String({ maxLength: 20 })),
  rtpm_check_id: Type.Optional(Type.String({ maxLength: 100 })),
  rtpm_acknowledge: Type.Optional(Type.String({ maxLength: 10 })),
  rtpm_attest: Type.Optional(Type.String({ maxLength: 10 })),
  rtpm_reason: Type.Optional(Type.String({ maxLength: 500 })),
  reason: Type.Optional(Type.String({ maxLength: DECLINE_REASON_MAX_LENGTH * 4 })),
});

/** The new-prescription form, as a queue manager sees it: with the prescriber to choose. */
export interface DraftFormPage extends FormPage {
  draft: { prescribers: Choice[]; errors: string[] };
}

const stringOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const subjectOf = (patientId: string) => ({ purpose: 'prepare_draft', target: patientId }) as const;

async function draftFormPageOf(ctx: PortalContext, session: PortalSession, patientId: string, values: FormValues, notes: { formId: string; forPrescriber: string; errors?: FieldError[]; warnings?: string[]; prefillDrugId?: string }): Promise<DraftFormPage> {
  const own = (notes.errors ?? []).filter((error) => error.field === 'for_prescriber');
  const others = (notes.errors ?? []).filter((error) => error.field !== 'for_prescriber');
  const page = await formPageOf(ctx, session, patientId, values, { formId: notes.formId, errors: formErrorsOf(others), warnings: notes.warnings, prefillDrugId: notes.prefillDrugId });
  const prescribers = await listReadyPrescribers(ctx.users, session);
  const choices = prescribers.map((p) => ({
    value: p.user_id,
    label: [p.title, p.given_name, p.family_name].filter(Boolean).join(' '),
    selected: p.user_id === notes.forPrescriber.toLowerCase(),
    disabled: false,
  }));
  const message = (error: FieldError) => (error.code === 'REQUIRED_FIELD' ? error.message : `The prescriber ${error.message}`);
  // A draft sends no event, so the session's reserved values are not shown as if it would: the approver's go with the event.
  return { ...page, reserved: [], draft: { prescribers: choices, errors: own.map(message) } };
}

export type DraftFormRead = { kind: 'form'; page: DraftFormPage } | { kind: 'issued'; patientId: string; formId: string };

/** The draft form (prefilled from its address as the new-prescription form is), its one-time id in its address. */
export async function readDraftForm(ctx: PortalContext, session: PortalSession, patientId: string, query: Record<string, unknown>): Promise<DraftFormRead> {
  const patient = await requirePatient(ctx.patients, session.organizationId, patientId);
  const formId = formIdOfAddress(ctx.forms, session, subjectOf(patient.id), query.form_id);
  if (formId === undefined) return { kind: 'issued', patientId: patient.id, formId: issueFormId(ctx.forms, session, subjectOf(patient.id)) };
  const prefill = readPrefill(query);
  const values: FormValues = { ...EMPTY_FORM, ...prefill.values };
  const page = await draftFormPageOf(ctx, session, patient.id, values, { formId, forPrescriber: stringOf(query.for_prescriber), warnings: prefill.warnings, prefillDrugId: prefill.customDrugId });
  return { kind: 'form', page };
}

export type DraftFormOutcome = { kind: 'prepared'; draftId: string } | { kind: 'form'; status: 200 | 422; page: DraftFormPage };

/** Stores the draft the form describes, or shows the form again (a search: 200; field errors: 422). Once per form. */
export async function submitDraftForm(ctx: PortalContext, session: PortalSession, patientId: string, submitted: SubmittedBody): Promise<DraftFormOutcome> {
  const fields = bodyFields(submitted);
  const values = readFormValues(fields);
  const forPrescriber = stringOf(fields.for_prescriber);
  const formId = stringOf(fields.form_id);
  const patient = await requirePatient(ctx.patients, session.organizationId, patientId);
  if (fields.intent === 'search') return { kind: 'form', status: 200, page: await draftFormPageOf(ctx, session, patient.id, values, { formId, forPrescriber }) };
  const once = await submitOnce(ctx.forms, session, formId, subjectOf(patient.id), async (): Promise<FormAttempt<DraftFormOutcome>> => {
    const { body, issues } = await prescribeBodyOfForm(ctx, values, { reserved_1: null, reserved_2: null, reserved_3: null });
    const read = await prepareDraft(ctx.prescriptions, session, { patientId: patient.id, prescriberId: forPrescriber }, { value: body, issues: [...submitted.issues, ...issues] });
    if (read.ok) return { result: read.value.draftId, outcome: { kind: 'prepared', draftId: read.value.draftId } };
    const page = await draftFormPageOf(ctx, session, patient.id, values, { formId, forPrescriber, errors: read.errors });
    return { result: undefined, outcome: { kind: 'form', status: 422, page } };
  });
  return once.kind === 'first' ? once.outcome : { kind: 'prepared', draftId: once.result };
}

// ---- the queue and a draft

export interface QueuePage {
  /** Drafts named to the session's user. */
  namedToYou: DraftView[];
  /** Drafts the session's user prepared. */
  preparedByYou: DraftView[];
  offersApproval: boolean;
}

export async function readApprovalQueue(ctx: PortalContext, session: PortalSession): Promise<QueuePage> {
  const drafts = await listDrafts(ctx.prescriptions, session);
  // The queue names each draft's patient.
  await notePatientsShown(ctx.patients, drafts.map((d) => d.patient.patientId));
  return {
    namedToYou: drafts.filter((d) => d.prescriber.userId === session.userId),
    preparedByYou: drafts.filter((d) => d.preparedBy.userId === session.userId),
    offersApproval: holdsCapability(session.roles, 'portal:approve_draft'),
  };
}

export interface DraftPage {
  draft: DraftView;
  /** The token's destination in words. */
  delivery: string;
  /** The decision forms are shown: the draft waits and is named to the session's user. */
  decides: boolean;
  approveFormId: string;
  declineFormId: string;
  reason: string;
  errors: string[];
  /** The monitoring check of a monitored medicine, once the approval form was sent (portal-rtpm-gate.ts). */
  rtpm: RtpmPanel | undefined;
}

function describeDraftDelivery(body: Record<string, unknown>): string {
  const delivery = body.delivery as { method?: string; recipient_type?: string; pharmacy_id?: string } | undefined;
  if (!delivery) return '';
  const how = delivery.method === 'SMS' ? 'SMS' : 'E-mail';
  return delivery.recipient_type === 'PHARMACY' ? `${how} to pharmacy ${delivery.pharmacy_id ?? ''}`.trim() : `${how} to the patient`;
}

async function draftPageOf(ctx: PortalContext, session: PortalSession, draftId: string, notes: { reason?: string; errors?: string[]; rtpm?: RtpmPanel | undefined } = {}): Promise<DraftPage> {
  const draft = await readDraft(ctx.prescriptions, session, draftId);
  await notePatientsShown(ctx.patients, [draft.patient.patientId]);
  const decides = draft.status === 'waiting' && draft.prescriber.userId === session.userId && holdsCapability(session.roles, 'portal:approve_draft');
  return {
    draft,
    delivery: describeDraftDelivery(draft.body),
    decides,
    approveFormId: issueFormId(ctx.forms, session, { purpose: 'approve_draft', target: draft.draftId }),
    declineFormId: issueFormId(ctx.forms, session, { purpose: 'decline_draft', target: draft.draftId }),
    reason: notes.reason ?? '',
    errors: notes.errors ?? [],
    rtpm: notes.rtpm,
  };
}

/** One draft of the session's user (prepared by them or named to them; 404 otherwise). */
export function readDraftPage(ctx: PortalContext, session: PortalSession, draftId: string): Promise<DraftPage> {
  return draftPageOf(ctx, session, draftId);
}

export type DecisionOutcome = { kind: 'approved'; patientId: string; scid: string } | { kind: 'declined'; draftId: string } | { kind: 'page'; status: 200 | 409 | 422; page: DraftPage };

/** Approves the draft (named to the session's user) once per approval form; a repeat lands on the prescription it made. */
export async function submitApproval(ctx: PortalContext, session: PortalSession, draftId: string, submitted: SubmittedBody): Promise<DecisionOutcome> {
  const draft = await readDraft(ctx.prescriptions, session, draftId);
  const target = draft.draftId;
  // The monitoring gate (and, for a Schedule 8 medicine, the step-up seam) before approving, as before writing from the form.
  const gate = { ctx, session, patientId: draft.patient.patientId, fields: rtpmFieldsOf(submitted), body: draft.body };
  const intent = bodyFields(submitted).intent;
  const opening = typeof intent === 'string' ? RTPM_OPEN_INTENT.exec(intent) : null;
  if (opening && draft.status === 'waiting') return { kind: 'page', status: 200, page: await draftPageOf(ctx, session, target, { rtpm: await openNotificationOfForm(gate, Number(opening[1])) }) };
  const once = await submitOnce(ctx.forms, session, stringOf(bodyFields(submitted).form_id), { purpose: 'approve_draft', target }, async (): Promise<FormAttempt<DecisionOutcome>> => {
    let rtpm: RtpmPanel | undefined;
    if (draft.status === 'waiting' && draft.prescriber.userId === session.userId) {
      const passed = await passRtpmGate(gate);
      rtpm = passed.panel;
      if (!passed.pass) return { result: undefined, outcome: { kind: 'page', status: passed.status, page: await draftPageOf(ctx, session, target, { rtpm }) } };
    }
    const read = await approveDraft(ctx.prescriptions, session, target, session.reserved);
    if (read.ok) return { result: read.value.scid, outcome: { kind: 'approved', ...read.value } };
    // 409: the draft was decided already, or the prescriber cannot prescribe; 422: the body no longer passes.
    const [status, errors] = 'refused' in read ? [409 as const, [read.refused]] : [422 as const, read.errors.map((error) => `${error.field}: ${error.message}`)];
    return { result: undefined, outcome: { kind: 'page', status, page: await draftPageOf(ctx, session, target, { errors, rtpm }) } };
  });
  if (once.kind === 'first') return once.outcome;
  return { kind: 'approved', patientId: draft.patient.patientId, scid: once.result };
}

/** Declines the draft (named to the session's user) with the reason the form gives (required), once per decline form. */
export async function submitDecline(ctx: PortalContext, session: PortalSession, draftId: string, submitted: SubmittedBody): Promise<DecisionOutcome> {
  const target = (await readDraft(ctx.prescriptions, session, draftId)).draftId;
  const reason = stringOf(bodyFields(submitted).reason);
  const once = await submitOnce(ctx.forms, session, stringOf(bodyFields(submitted).form_id), { purpose: 'decline_draft', target }, async (): Promise<FormAttempt<DecisionOutcome>> => {
    const read = await declineDraft(ctx.prescriptions, session, target, { value: { reason }, issues: submitted.issues });
    if (read.ok) return { result: target, outcome: { kind: 'declined', draftId: target } };
    const [status, errors] = 'refused' in read ? [409 as const, [read.refused]] : [422 as const, read.errors.map((error) => (error.code === 'REQUIRED_FIELD' ? error.message : `The reason ${error.message}.`))];
    return { result: undefined, outcome: { kind: 'page', status, page: await draftPageOf(ctx, session, target, { reason, errors }) } };
  });
  return once.kind === 'first' ? once.outcome : { kind: 'declined', draftId: target };
}
