// Prescribing from the portal: the new-prescription form (prefilled from its address, its
// medicines narrowed by a search), creating the prescription, the prescription's own page
// (the confirmation after creating it), and ceasing, cancelling or reissuing it after a
// confirmation step. Creating and changing call the prescriptions service with the session
// as the caller and its user as the acting prescriber, and with the session's reserved_1..3,
// so the same rules hold and the same events are written as through any other entry point.
import { holdsCapability, needsReadinessFor, type Capability } from '../auth/index.ts';
import { findPbsItem, searchMedicines } from '../medicines/index.ts';
import { requirePatient } from '../patients/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import {
  changePrescriptionOrRefuse,
  type PrescriptionChange,
  PRESCRIPTION_CHANGES,
  TRANSITIONS,
  readPatientPrescription,
  requirePatientPrescriptionScid,
  prescribeOrRefuse,
  describeMedicine,
  renderScidQrCode,
  type Prescription,
} from '../prescriptions/index.ts';
import { DETAIL_FIELDS, DETAIL_LABELS } from './prescription-form-fields.ts';
import type { PortalSession } from '../sso/index.ts';
import { readPrescriberProfile } from '../users/index.ts';
import { formIdOfAddress, issueFormId, resultOfSentForm, submitOnce, type FormAttempt } from './portal-forms-service.ts';
import { choiceOfDelivery, deliveryChoicesOf, describeDelivery, medicineGroupsOf, MEDICINES_LISTED, pbsItemsFoundOf, type Choice, type MedicineGroup, type PbsItemFound } from './prescription-choices.ts';
import { deliveryOfChoice, EMPTY_FORM, firstFieldInError, formErrorsOf, medicineValueOfDrug, pbsCodeOfChoice, prescribeBodyOf, readFormValues, readPrefill, type FormErrors, type FormValues } from './prescription-form.ts';
import { shownReserved, viewOfPatientRow, viewOfPrescriber, type PatientView, type PortalContext, type PrescriberView } from './portal-service.ts';
import type { EventMetadata } from '../webhooks/index.ts';

export interface FormPage {
  /** The form's one-time id (portal-forms-service.ts). */
  formId: string;
  /** The SCID this form already created (it was sent, and the page was opened again: Back). */
  sentAs?: string;
  patient: PatientView;
  prescriber: PrescriberView;
  values: FormValues;
  medicines: MedicineGroup[];
  /** The PBS items listed, with their restriction text (shown beside the list). */
  pbsItemsFound: PbsItemFound[];
  /** More PBS items or custom drugs match than are listed (search to narrow). */
  moreMedicines: boolean;
  deliveries: Choice[];
  warnings: string[];
  errors: FormErrors;
  /** The field that takes the focus: the first one in error. */
  focus: string | undefined;
  reserved: Array<{ name: string; value: string }>;
}

const NO_ERRORS: FormErrors = { fields: {}, general: [] };

interface FormNotes {
  /** The id of the form being shown again; none: a new form, with a new id. */
  formId?: string;
  warnings?: string[];
  errors?: FormErrors;
  /** A custom_drug_id to preselect, if it is one the prescriber may use (else a warning). */
  prefillDrugId?: string;
}

export async function formPageOf(ctx: PortalContext, session: PortalSession, patientId: string, values: FormValues, notes: FormNotes): Promise<FormPage> {
  const patient = await requirePatient(ctx.patients, session.organizationId, patientId);
  const prescriber = viewOfPrescriber(await readPrescriberProfile(ctx.users, session, session.userId));
  const wanted = notes.prefillDrugId;
  const chosenId = wanted ?? (values.medicine.startsWith(DRUG_CHOICE) ? values.medicine.slice(DRUG_CHOICE.length) : undefined);
  const found = await searchMedicines(ctx.medicines, session, { search: values.search, limit: MEDICINES_LISTED, alsoCustomDrugId: chosenId, alsoPbsCode: pbsCodeOfChoice(values.medicine) });
  const drugs = found.customDrugs;
  const warnings = [...(notes.warnings ?? [])];
  if (wanted !== undefined) {
    const drug = drugs.find((d) => d.custom_drug_id === wanted.toLowerCase());
    if (drug) values = { ...values, medicine: medicineValueOfDrug(drug.custom_drug_id) };
    else warnings.push(`custom_drug_id "${wanted.slice(0, 64)}" was ignored: it is not a drug of your organization's catalog or one of your own.`);
  }
  const groups = medicineGroupsOf(found, { selected: values.medicine });
  return {
    formId: notes.formId ?? issueFormId(ctx.forms, session, { purpose: 'prescribe', target: patient.id }),
    patient: viewOfPatientRow(patient),
    prescriber,
    values,
    medicines: groups,
    pbsItemsFound: pbsItemsFoundOf(found),
    moreMedicines: found.more,
    deliveries: deliveryChoicesOf(patient, values.send_to),
    warnings,
    errors: notes.errors ?? NO_ERRORS,
    focus: notes.errors ? firstFieldInError(notes.errors) : undefined,
    reserved: shownReserved(session.reserved),
  };
}

const DRUG_CHOICE = medicineValueOfDrug('');

/** `?search=` on the form's address lists the medicines matching it (a bookmarkable search), up to the form's 100 characters. */
const searchOfQuery = (query: Record<string, unknown>) => (typeof query.search === 'string' ? query.search.trim().slice(0, 100) : '');

/** The form shown, or the id to put in its address first (the patient's canonical id with it). */
export type FormRead = { kind: 'form'; page: FormPage } | { kind: 'issued'; patientId: string; formId: string };

/**
 * The empty form, prefilled from its address (invalid numbers ignored with a warning). Its
 * one-time id is part of the address (`form_id`), so that Back returns to the same form: an
 * address without an id this session was issued for this patient is answered with a new id.
 */
export async function readPrescriptionForm(ctx: PortalContext, session: PortalSession, patientId: string, query: Record<string, unknown>): Promise<FormRead> {
  const patient = await requirePatient(ctx.patients, session.organizationId, patientId);
  const subject = { purpose: 'prescribe', target: patient.id } as const;
  const formId = formIdOfAddress(ctx.forms, session, subject, query.form_id);
  if (formId === undefined) return { kind: 'issued', patientId: patient.id, formId: issueFormId(ctx.forms, session, subject) };
  const prefill = readPrefill(query);
  const values: FormValues = { ...EMPTY_FORM, ...prefill.values, search: searchOfQuery(query) };
  const page = await formPageOf(ctx, session, patientId, values, { formId, warnings: prefill.warnings, prefillDrugId: prefill.customDrugId });
  return { kind: 'form', page: { ...page, sentAs: await resultOfSentForm(ctx.forms, formId) } };
}

export type FormOutcome = { kind: 'created'; scid: string } | { kind: 'form'; status: 200 | 409 | 422; page: FormPage };

/** The 409 a prescribing call may answer (the lifecycle or the prescriber's readiness refuses), as a message to show; anything else is thrown on. */
function conflictMessageOf(error: unknown): string {
  if (error instanceof ApiError && error.code === 'CONFLICT') return error.detail;
  throw error;
}

const formIdOf = (submitted: SubmittedBody): string => {
  const sent = bodyFields(submitted).form_id;
  return typeof sent === 'string' ? sent : '';
};

/**
 * Creates the prescription the form describes, or shows the form again: with the medicines a
 * search found (200), with each field error under its field (422), or saying why the prescriber
 * cannot prescribe (409). The patient is found first (404), as on every route. The form
 * creates once: a second post of it is sent to the prescription the first one made.
 */
export async function submitPrescriptionForm(ctx: PortalContext, session: PortalSession, patientId: string, submitted: SubmittedBody): Promise<FormOutcome> {
  const values = readFormValues(bodyFields(submitted));
  const formId = formIdOf(submitted);
  const patient = await requirePatient(ctx.patients, session.organizationId, patientId);
  if (bodyFields(submitted).intent === 'search') return { kind: 'form', status: 200, page: await formPageOf(ctx, session, patientId, values, { formId }) };
  const once = await submitOnce(ctx.forms, session, formId, { purpose: 'prescribe', target: patient.id }, async (): Promise<FormAttempt<FormOutcome>> => {
    const outcome = await createFromForm(ctx, session, patientId, values, submitted, formId);
    return { result: outcome.kind === 'created' ? outcome.scid : undefined, outcome };
  });
  return once.kind === 'first' ? once.outcome : { kind: 'created', scid: once.result };
}

/** The prescribe body a form describes, a chosen PBS item written out from the schedule. */
export async function prescribeBodyOfForm(ctx: PortalContext, values: FormValues, reserved: EventMetadata): Promise<ReturnType<typeof prescribeBodyOf>> {
  const pbsCode = pbsCodeOfChoice(values.medicine);
  const pbsItem = pbsCode === undefined ? undefined : await findPbsItem(ctx.medicines, pbsCode);
  return prescribeBodyOf(values, { pbsItem, reserved });
}

async function createFromForm(ctx: PortalContext, session: PortalSession, patientId: string, values: FormValues, submitted: SubmittedBody, formId: string): Promise<FormOutcome> {
  const { body, issues } = await prescribeBodyOfForm(ctx, values, session.reserved);
  let refusal: { status: 409 | 422; errors: FormErrors };
  try {
    const read = await prescribeOrRefuse(ctx.prescriptions, session, { userId: session.userId, patientId }, { value: body, issues: [...submitted.issues, ...issues] });
    if (read.ok) return { kind: 'created', scid: read.value.scid };
    refusal = { status: 422, errors: formErrorsOf(read.errors) };
  } catch (error) {
    refusal = { status: 409, errors: { fields: {}, general: [conflictMessageOf(error)] } };
  }
  return { kind: 'form', status: refusal.status, page: await formPageOf(ctx, session, patientId, values, { errors: refusal.errors, formId }) };
}

export interface PrescriptionPage {
  patient: PatientView;
  scid: string;
  status: string;
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
  delivery: string;
  /** The current delivery as a choice (preselected when reissuing). */
  deliveryChoice: string;
  tokenUrl: string;
  qrSvg: string;
  /** The changes the prescription's status allows and the session's role may make. */
  actions: PrescriptionChange[];
  /** Whether the status allows any change at all (whoever asks). */
  changeable: boolean;
  /** Whether the page offers a new prescription (the role may prescribe). */
  offersNewPrescription: boolean;
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

/** What each change asks of the session's roles (capabilities.ts). */
export const CHANGE_CAPABILITIES = { cease: 'portal:prescribe', cancel: 'portal:prescribe', reissue: 'portal:reissue' } as const satisfies Record<PrescriptionChange, Capability>;

/** The prescription (404 for another patient's or organization's), with its token's QR code and the changes it allows. */
export async function readPrescriptionPage(ctx: PortalContext, session: PortalSession, patientId: string, scid: string): Promise<PrescriptionPage> {
  const { patient, prescription: p } = await readPatientPrescription(ctx.prescriptions, session, { userId: session.userId, patientId, scid });
  const allowed = PRESCRIPTION_CHANGES.filter((action) => TRANSITIONS[action].from === p.status);
  return {
    patient: { patientId: patient.patient_id, name: `${patient.given_name} ${patient.family_name}`, dateOfBirth: patient.date_of_birth.slice(0, 10), partnerPatientId: patient.partner_patient_id },
    scid: p.scid,
    status: p.status,
    medicine: describeMedicine(p),
    quantity: p.quantity,
    repeats: p.number_of_repeats_authorised,
    repeatIntervalDays: p.repeat_intervals,
    patientInstructions: p.patient_instructions,
    doctorNotes: p.doctor_notes,
    prescriber: [p.prescriber.title, p.prescriber.given_name, p.prescriber.family_name].filter(Boolean).join(' '),
    details: detailsOf(p),
    createdDate: p.created_date,
    delivery: describeDelivery(p.delivery),
    deliveryChoice: choiceOfDelivery(p.delivery),
    tokenUrl: p.url,
    qrSvg: await renderScidQrCode(p.scid),
    actions: allowed.filter((action) => holdsCapability(session.roles, CHANGE_CAPABILITIES[action])),
    changeable: allowed.length > 0,
    offersNewPrescription: holdsCapability(session.roles, 'portal:prescribe'),
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
  const deliveries = action === 'reissue' ? deliveryChoicesOf(await requirePatient(ctx.patients, session.organizationId, ids.patientId), sendTo || prescription.deliveryChoice) : [];
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
  let refusal: { status: 409 | 422; errors: string[] };
  try {
    const read = await changePrescriptionOrRefuse(ctx.prescriptions, session, { userId: session.userId, ...ids }, action, { value: body, issues: submitted.issues }, actorMustPrescribe);
    if (read.ok) return { kind: 'done' };
    refusal = { status: 422, errors: read.errors.map((error) => error.message) };
  } catch (error) {
    refusal = { status: 409, errors: [conflictMessageOf(error)] };
  }
  return { kind: 'confirm', status: refusal.status, confirmation: await confirmationOf(ctx, session, ids, form, refusal.errors) };
}
