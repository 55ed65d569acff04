// Prescribing from the portal: the new-prescription form (prefilled from its address, its
// medicines narrowed by a search) and creating the prescription (the prescription's own page
// and its changes are in portal-prescription-page.ts). Creating calls the prescriptions service
// with the session as the caller and its user as the acting prescriber, and with the session's
// reserved_1..3, so the same rules hold and the same events are written as through any other
// entry point.
import { findPbsItem, searchMedicines } from '../medicines/index.ts';
import { contactOfPatient, requirePatient, showPatient } from '../patients/index.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import { prescribeOrRefuse, referenceOf } from '../prescriptions/index.ts';
import type { PortalSession } from '../sso/index.ts';
import { readPrescriberProfile } from '../users/index.ts';
import { formIdOfAddress, issueFormId, resultOfSentForm, submitOnce, type FormAttempt } from './portal-forms-service.ts';
import { deliveryChoicesOf, medicineGroupsOf, MEDICINES_LISTED, pbsItemsFoundOf, type Choice, type MedicineGroup, type PbsItemFound } from './prescription-choices.ts';
import { EMPTY_FORM, firstFieldInError, formErrorsOf, medicineValueOfDrug, pbsCodeOfChoice, prescribeBodyOf, readFormValues, readPrefill, type FormErrors, type FormValues } from './prescription-form.ts';
import { shownReserved, viewOfPatientRow, viewOfPrescriber, type PatientView, type PortalContext, type PrescriberView } from './portal-service.ts';
import type { EventMetadata } from '../webhooks/index.ts';
import { openNotificationOfForm, passRtpmGate, RTPM_OPEN_INTENT, rtpmFieldsOf, type RtpmPanel } from './portal-rtpm-gate.ts';

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
  /** The real-time prescription monitoring of a monitored medicine, once the form was sent with one (portal-rtpm-gate.ts). */
  rtpm: RtpmPanel | undefined;
}

const NO_ERRORS: FormErrors = { fields: {}, general: [] };

interface FormNotes {
  /** The id of the form being shown again; none: a new form, with a new id. */
  formId?: string;
  warnings?: string[];
  errors?: FormErrors;
  /** A custom_drug_id to preselect, if it is one the prescriber may use (else a warning). */
  prefillDrugId?: string;
  rtpm?: RtpmPanel | undefined;
}

export async function formPageOf(ctx: PortalContext, session: PortalSession, patientId: string, values: FormValues, notes: FormNotes): Promise<FormPage> {
  // The form shows the patient's name, birth date, phone and e-mail: a patient.read, on every render.
  const patient = await showPatient(ctx.patients, session.organizationId, patientId);
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
    deliveries: deliveryChoicesOf(contactOfPatient(ctx.patients, patient), values.send_to),
    warnings,
    errors: notes.errors ?? NO_ERRORS,
    focus: notes.errors ? firstFieldInError(notes.errors) : undefined,
    reserved: shownReserved(session.reserved),
    rtpm: notes.rtpm,
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

export const formIdOf = (submitted: SubmittedBody): string => {
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
  const intent = bodyFields(submitted).intent;
  if (intent === 'search') return { kind: 'form', status: 200, page: await formPageOf(ctx, session, patientId, values, { formId }) };
  const opening = typeof intent === 'string' ? RTPM_OPEN_INTENT.exec(intent) : null;
  if (opening) {
    const { body } = await prescribeBodyOfForm(ctx, values, session.reserved);
    const rtpm = await openNotificationOfForm({ ctx, session, patientId, fields: rtpmFieldsOf(submitted), body }, Number(opening[1]));
    return { kind: 'form', status: 200, page: await formPageOf(ctx, session, patientId, values, { formId, rtpm }) };
  }
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
  let rtpm: RtpmPanel | undefined;
  // A monitored medicine is checked (and a Schedule 8 one stepped up) before it is written; a body with field errors is refused first.
  if (issues.length === 0 && submitted.issues.length === 0) {
    const gate = await passRtpmGate({ ctx, session, patientId, fields: rtpmFieldsOf(submitted), body });
    rtpm = gate.panel;
    if (!gate.pass) return { kind: 'form', status: gate.status, page: await formPageOf(ctx, session, patientId, values, { formId, rtpm }) };
  }
  const read = await prescribeOrRefuse(ctx.prescriptions, session, { userId: session.userId, patientId }, { value: body, issues: [...submitted.issues, ...issues] });
  if (read.ok) return { kind: 'created', scid: referenceOf(read.value) };
  const refusal = 'refused' in read ? { status: 409 as const, errors: { fields: {}, general: [read.refused] } } : { status: 422 as const, errors: formErrorsOf(read.errors) };
  return { kind: 'form', status: refusal.status, page: await formPageOf(ctx, session, patientId, values, { errors: refusal.errors, formId, rtpm }) };
}
