// A prescription's own page in the portal (the confirmation after creating it: its token's QR
// code, its details, the changes it allows) and ceasing, cancelling or reissuing it after a
// confirmation step, through the prescriptions service with the session as the caller, so the
// same rules hold and the same events are written as through any other entry point.
import { holdsCapability, needsReadinessFor, type Capability } from '../auth/index.ts';
import { contactOfPatient, notePatientsShown, requirePatient } from '../patients/index.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import {
  changePrescriptionOrRefuse,
  type PrescriptionChange,
  PRESCRIPTION_CHANGES,
  TRANSITIONS,
  printPaperPrescription,
  readPatientPrescriptionWithMessage,
  requirePatientPrescriptionScid,
  describeMedicine,
  referenceOf,
  renderScidQrCode,
  UNPRINTABLE_PAPER,
  writeOnPaperInstead,
  type LegalMetadata,
  type Prescription,
} from '../prescriptions/index.ts';
import { DETAIL_FIELDS, DETAIL_LABELS } from './prescription-form-fields.ts';
import type { PortalSession } from '../sso/index.ts';
import { issueFormId, submitOnce, type FormAttempt } from './portal-forms-service.ts';
import { formIdOf } from './portal-prescribing.ts';
import { choiceOfDelivery, deliveryChoicesOf, describeDelivery, type Choice } from './prescription-choices.ts';
import { deliveryOfChoice } from './prescription-form.ts';
import { shownReserved, type PatientView, type PortalContext } from './portal-service.ts';

export interface PrescriptionPage {
  patient: PatientView;
  /** How the prescription is addressed: its SCID, or erx's id where the PDS has not assigned one. */
  scid: string;
  /** The SCID the PDS assigned (undefined: Pending, Error, or a paper prescription no PDS took). */
  pdsScid: string | undefined;
  status: string;
  /** Being sent to the PDS: no SCID yet. */
  pending: boolean;
  /** Why the PDS refused it, or could not take it (status Error). */
  errorDescription: string | undefined;
  /** What the PDS reported of its dispensing. */
  dispensing: { supplies_dispensed: number; repeats_remaining: number; lastDispensedAt: string | undefined } | undefined;
  medicine: string;
  quantity: string;
  repeats: string;
  repeatIntervalDays: string | undefined;
  patientInstructions: string | undefined;
  doctorNotes: string | undefined;
  prescriber: string;
  /** The prescription's other fields that are set, in the form's words. */
  details: Array<{ label: string; value: string }>;
  createdDate: string;
  /** PAPER: printed from its PDF and handed over (no token, no delivery). */
  paper: boolean;
  /** Why a paper prescription's PDF is not offered (Pending: waiting for the PDS's SCID; Error); undefined: it is. */
  pdfWithheld: string | undefined;
  /** Where the token went (undefined: a paper prescription). */
  delivery: string | undefined;
  /** How the token's latest message went (undefined: none was written, e.g. before token delivery existed). */
  tokenMessage: { status: string; error: string | null; at: string } | undefined;
  /** The current delivery as a choice (preselected when reissuing; empty for paper). */
  deliveryChoice: string;
  /** The token page and its QR code (undefined: a paper prescription has no token). */
  tokenUrl: string | undefined;
  qrSvg: string | undefined;
  /** What the script states of its software, itself and its writers (s41A). */
  legal: LegalMetadata;
  /** The changes the prescription's status allows and the session's role may make. */
  actions: PrescriptionChange[];
  /** Whether the status allows any change at all (whoever asks). */
  changeable: boolean;
  /** Whether the page offers a new prescription (the role may prescribe). */
  offersNewPrescription: boolean;
  /** Whether the page offers to write it on paper instead: Pending, and the session's user is its prescriber. */
  offersPaperInstead: boolean;
  reserved: Array<{ name: string; value: string }>;
}

/** The set fields beyond the medicine, counts and instructions: the script number, the PBS code, then the form's details. */
function detailsOf(p: Prescription): PrescriptionPage['details'] {
  const details = [{ label: 'Prescriber script number', value: p.prescriber_script_number }];
  if (p.pbs_code !== undefined) details.push({ label: 'PBS code', value: p.pbs_code });
  for (const field of DETAIL_FIELDS) {
    const value = p[field];
    if (typeof value === 'string') details.push({ label: DETAIL_LABELS[field], value });
    else if (value === true) details.push({ label: DETAIL_LABELS[field], value: 'Yes' });
  }
  return details;
}

/** The PDF of a paper prescription (404 for another organization's, or an electronic one). */
export function printPrescription(ctx: PortalContext, session: PortalSession, patientId: string, scid: string): Promise<{ scid: string; pdf: Uint8Array }> {
  return printPaperPrescription(ctx.prescriptions, session, { userId: session.userId, patientId, scid });
}

export type PaperInsteadOutcome = { kind: 'done'; reference: string } | { kind: 'refused'; page: PrescriptionPage; refused: string };

/** Writes the Pending prescription on paper instead (the prescriptions service decides), or its page again with why not. */
export async function submitPaperInstead(ctx: PortalContext, session: PortalSession, ids: { patientId: string; scid: string }): Promise<PaperInsteadOutcome> {
  const read = await writeOnPaperInstead(ctx.prescriptions, session, { userId: session.userId, ...ids });
  if (read.ok) return { kind: 'done', reference: referenceOf(read.value) };
  const refused = 'refused' in read ? read.refused : read.errors.map((error) => error.message).join(' ');
  return { kind: 'refused', page: await readPrescriptionPage(ctx, session, ids.patientId, ids.scid), refused };
}

/** What each change asks of the session's roles (capabilities.ts). */
export const CHANGE_CAPABILITIES = { cease: 'portal:prescribe', cancel: 'portal:prescribe', reissue: 'portal:reissue' } as const satisfies Record<PrescriptionChange, Capability>;

/** The prescription (404 for another patient's or organization's), with its token's QR code and the changes it allows. */
export async function readPrescriptionPage(ctx: PortalContext, session: PortalSession, patientId: string, scid: string): Promise<PrescriptionPage> {
  const { patient, prescription: p, tokenMessage } = await readPatientPrescriptionWithMessage(ctx.prescriptions, session, { userId: session.userId, patientId, scid });
  await notePatientsShown(ctx.patients, [patient.patient_id]);
  const paper = p.prescription_type === 'PAPER';
  // A paper prescription has no token to send again: the portal does not offer to.
  const allowed = PRESCRIPTION_CHANGES.filter((action) => TRANSITIONS[action].from === p.status && !(paper && action === 'reissue'));
  return {
    patient: { patientId: patient.patient_id, name: `${patient.given_name} ${patient.family_name}`, dateOfBirth: patient.date_of_birth.slice(0, 10), partnerPatientId: patient.partner_patient_id },
    scid: referenceOf(p),
    pdsScid: p.scid,
    status: p.status,
    pending: p.status === 'Pending',
    errorDescription: p.error?.description,
    dispensing: p.dispensing && { ...p.dispensing, lastDispensedAt: p.dispensing.last_dispensed_at?.slice(0, 16).replace('T', ' ') },
    medicine: describeMedicine(p),
    quantity: p.quantity,
    repeats: p.number_of_repeats_authorised,
    repeatIntervalDays: p.repeat_intervals,
    patientInstructions: p.patient_instructions,
    doctorNotes: p.doctor_notes,
    prescriber: [p.prescriber.title, p.prescriber.given_name, p.prescriber.family_name].filter(Boolean).join(' '),
    details: detailsOf(p),
    createdDate: p.created_date,
    paper,
    pdfWithheld: paper ? UNPRINTABLE_PAPER[p.status] : undefined,
    delivery: p.delivery && describeDelivery(p.delivery),
    tokenMessage: tokenMessage && { status: tokenMessage.status, error: tokenMessage.last_error, at: (tokenMessage.completed_at ?? tokenMessage.created_at).slice(0, 16).replace('T', ' ') },
    deliveryChoice: p.delivery ? choiceOfDelivery(p.delivery) : '',
    tokenUrl: p.url,
    qrSvg: paper || p.scid === undefined ? undefined : await renderScidQrCode(p.scid),
    legal: p.legal_metadata,
    actions: allowed.filter((action) => holdsCapability(session.roles, CHANGE_CAPABILITIES[action])),
    changeable: allowed.length > 0,
    offersNewPrescription: holdsCapability(session.roles, 'portal:prescribe'),
    offersPaperInstead: p.status === 'Pending' && p.prescriber.user_id === session.userId && holdsCapability(session.roles, 'portal:prescribe'),
    reserved: shownReserved(session.reserved),
  };
}

export interface ChangeConfirmation {
  /** The confirmation form's one-time id. */
  formId: string;
  action: PrescriptionChange;
  prescription: PrescriptionPage;
  /** For a reissue: where the token can go this time. */
  deliveries: Choice[];
  errors: string[];
}

export type ChangeOutcome = { kind: 'done' } | { kind: 'confirm'; status: 200 | 409 | 422; confirmation: ChangeConfirmation };

type ChangeForm = { action: PrescriptionChange; sendTo: string; formId?: string };

async function confirmationOf(ctx: PortalContext, session: PortalSession, ids: { patientId: string; scid: string }, form: ChangeForm, errors: string[]): Promise<ChangeConfirmation> {
  const { action, sendTo } = form;
  const prescription = await readPrescriptionPage(ctx, session, ids.patientId, ids.scid);
  const deliveries = action === 'reissue' ? deliveryChoicesOf(contactOfPatient(ctx.patients, await requirePatient(ctx.patients, session.organizationId, ids.patientId)), sendTo || prescription.deliveryChoice) : [];
  const formId = form.formId ?? issueFormId(ctx.forms, session, { purpose: action, target: prescription.scid });
  return { formId, action, prescription, deliveries, errors };
}

/**
 * A change asked for without `confirm=yes` shows its confirmation step; confirmed, it is made
 * through the prescriptions service (which refuses what the lifecycle does not allow: 409,
 * shown on the confirmation page), once per confirmation form. An rx_reader's reissue does not
 * ask the reader to be able to prescribe (capabilities.ts).
 */
export async function submitPrescriptionChange(
  ctx: PortalContext,
  session: PortalSession,
  ids: { patientId: string; scid: string },
  action: PrescriptionChange,
  submitted: SubmittedBody,
): Promise<ChangeOutcome> {
  const fields = bodyFields(submitted);
  const sendTo = typeof fields.send_to === 'string' ? fields.send_to : '';
  if (fields.confirm !== 'yes') return { kind: 'confirm', status: 200, confirmation: await confirmationOf(ctx, session, ids, { action, sendTo }, []) };
  const scid = await requirePatientPrescriptionScid(ctx.prescriptions, session, { userId: session.userId, ...ids });
  const form = { action, sendTo, formId: formIdOf(submitted) };
  const once = await submitOnce(ctx.forms, session, form.formId, { purpose: action, target: scid }, async (): Promise<FormAttempt<ChangeOutcome>> => {
    const outcome = await changeFromForm(ctx, session, ids, form, submitted);
    return { result: outcome.kind === 'done' ? scid : undefined, outcome };
  });
  return once.kind === 'first' ? once.outcome : { kind: 'done' };
}

async function changeFromForm(ctx: PortalContext, session: PortalSession, ids: { patientId: string; scid: string }, form: Required<ChangeForm>, submitted: SubmittedBody): Promise<ChangeOutcome> {
  const { action, sendTo } = form;
  const delivery = action === 'reissue' ? deliveryOfChoice(sendTo) : undefined;
  const body = { ...session.reserved, ...(delivery ? { delivery } : {}) };
  const actorMustPrescribe = needsReadinessFor(session.roles, CHANGE_CAPABILITIES[action]);
  const read = await changePrescriptionOrRefuse(ctx.prescriptions, session, { userId: session.userId, ...ids }, action, { value: body, issues: submitted.issues }, actorMustPrescribe);
  if (read.ok) return { kind: 'done' };
  const refusal = 'refused' in read ? { status: 409 as const, errors: [read.refused] } : { status: 422 as const, errors: read.errors.map((error) => error.message) };
  return { kind: 'confirm', status: refusal.status, confirmation: await confirmationOf(ctx, session, ids, form, refusal.errors) };
}
