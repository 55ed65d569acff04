// The new-prescription form as data: its fields, the prefill a partner may put on the form's
// address (custom_drug_id, quantity, repeats, repeats_interval, patient_instructions,
// doctor_instructions), and the translation of a submitted form into the prescribe body the
// prescriptions service judges, so the portal applies exactly the rules the API does. The
// service's field errors are shown under the form fields they came from.
import { Type } from '@sinclair/typebox';
import type { FieldError } from '../platform/http/body-validation.ts';
import type { PbsItem } from '../medicines/index.ts';
import { COUNT_LIMITS, describeCountLimit, ITEM_FIELDS, readCount, TEXT_LIMITS, type CountField, type PrescribeBody } from '../prescriptions/index.ts';
import type { EventMetadata } from '../webhooks/index.ts';
import { DETAIL_FIELDS, DETAIL_LABELS, DETAIL_TEXT_FIELDS, DETAIL_TEXT_LIMITS, detailFieldsOf, SCHEDULE_CHOICES, type DetailField } from './prescription-form-fields.ts';

const BASIC_FIELDS = ['medicine', 'quantity', 'repeats', 'repeat_interval_days', 'patient_instructions', 'doctor_instructions', 'prescription_type', 'send_to'] as const;
export const FORM_FIELDS = [...BASIC_FIELDS, ...DETAIL_FIELDS] as const;
export type FormField = (typeof BASIC_FIELDS)[number] | DetailField;

/** The fields in the order the form shows them: the first one in error takes the focus. */
export const FORM_ORDER: readonly FormField[] = [
  'medicine', 'private_prescription', 'pbsdva_authority_number', 'phone_approval_authority_number', 'schedule_number',
  'quantity', 'repeats', 'repeat_interval_days', 'reason_for_prescribing', 'patient_instructions', 'doctor_instructions', 'annotations',
  'controlled_substance_reference', 'brand_substitution_not_allowed', 'regulation_24', 'emergency_supply', 'unusual_dose_flag', 'unusual_qty_flag',
  'my_sl_consent', 'unlisted_item_repat_authority', 'prescription_type', 'send_to',
];
export type FormValues = Record<FormField, string> & { search: string };

/** The visible label of each field: also its accessible name, which partners' tests rely on. */
export const FIELD_LABELS: Readonly<Record<FormField, string>> = {
  medicine: 'Medicine',
  quantity: 'Quantity',
  repeats: 'Repeats',
  repeat_interval_days: 'Repeat interval (days)',
  patient_instructions: 'Patient instructions',
  doctor_instructions: 'Doctor instructions',
  prescription_type: 'Prescription type',
  send_to: 'Send token to',
  ...DETAIL_LABELS,
};

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const CHECKBOX_FIELDS_FOR_SCHEMA = DETAIL_FIELDS.filter((field) => !(DETAIL_TEXT_FIELDS as readonly string[]).includes(field) && field !== 'schedule_number');

/** What the form posts. Lengths as the prescribe body's; the counts are judged by the service. */
export const PrescriptionFormBody = Type.Object({
  medicine: text(200),
  quantity: text(20),
  repeats: text(20),
  repeat_interval_days: text(20),
  patient_instructions: text(TEXT_LIMITS.patient_instructions),
  doctor_instructions: text(TEXT_LIMITS.doctor_instructions),
  send_to: text(200),
  prescription_type: text(20),
  ...Object.fromEntries(DETAIL_TEXT_FIELDS.map((field) => [field, text(DETAIL_TEXT_LIMITS[field])])),
  schedule_number: text(2),
  ...Object.fromEntries(CHECKBOX_FIELDS_FOR_SCHEMA.map((field) => [field, text(10)])),
  search: text(100),
  /** `search` re-shows the form with the medicines found; anything else creates the prescription. */
  intent: text(20),
  /** The form's one-time id (portal-forms-service.ts). */
  form_id: text(100),
  /** The real-time prescription monitoring gate (portal-rtpm-gate.ts): the check shown, its acknowledgement, an attestation, a reason. */
  rtpm_check_id: text(100),
  rtpm_acknowledge: text(10),
  rtpm_attest: text(10),
  rtpm_reason: text(500),
});

export const EMPTY_FORM: FormValues = {
  ...(Object.fromEntries(FORM_FIELDS.map((field) => [field, ''])) as Record<FormField, string>),
  search: '',
};

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : '');

/** The posted values, trimmed; anything that is not a string reads as empty (the schema has reported it). */
export function readFormValues(body: Record<string, unknown>): FormValues {
  const values = { ...EMPTY_FORM };
  for (const field of [...FORM_FIELDS, 'search'] as const) values[field] = stringOf(body[field]).trim();
  return values;
}

// ---- prefill

/** The prefill parameter of each count field (the vendor calls the interval repeats_interval). */
const PREFILL_COUNTS: ReadonlyArray<{ param: string; field: CountField & FormField }> = [
  { param: 'quantity', field: 'quantity' },
  { param: 'repeats', field: 'repeats' },
  { param: 'repeats_interval', field: 'repeat_interval_days' },
];
const PREFILL_TEXTS = ['patient_instructions', 'doctor_instructions'] as const;

export interface Prefill {
  values: Partial<FormValues>;
  /** The custom drug to preselect, once it is known to be one the prescriber may use. */
  customDrugId: string | undefined;
  warnings: string[];
}

const codePoints = (value: string) => [...value];

/** The prefill of the form's query: numbers out of range are ignored with a warning, long text truncated. */
export function readPrefill(query: Record<string, unknown>): Prefill {
  const prefill: Prefill = { values: {}, customDrugId: undefined, warnings: [] };
  for (const { param, field } of PREFILL_COUNTS) {
    const sent = stringOf(query[param]);
    if (sent === '') continue;
    const count = readCount(field, sent);
    if (count === undefined) prefill.warnings.push(`${param} "${sent.slice(0, 20)}" was ignored: it ${describeCountLimit(field)}.`);
    else prefill.values[field] = String(count);
  }
  for (const field of PREFILL_TEXTS) {
    const sent = codePoints(stringOf(query[field]));
    if (sent.length > TEXT_LIMITS[field]) prefill.warnings.push(`${field} was shortened to ${TEXT_LIMITS[field]} characters.`);
    if (sent.length > 0) prefill.values[field] = sent.slice(0, TEXT_LIMITS[field]).join('');
  }
  const drugId = stringOf(query.custom_drug_id).trim();
  if (drugId !== '') prefill.customDrugId = drugId;
  return prefill;
}

export const COUNT_HINTS: Readonly<Record<'quantity' | 'repeats' | 'repeat_interval_days', string>> = {
  quantity: `${COUNT_LIMITS.quantity.min} to ${COUNT_LIMITS.quantity.max}; leave empty to use a custom drug's own quantity.`,
  repeats: `${COUNT_LIMITS.repeats.min} to ${COUNT_LIMITS.repeats.max}; empty means none.`,
  repeat_interval_days: `${COUNT_LIMITS.repeat_interval_days.min} to ${COUNT_LIMITS.repeat_interval_days.max} days between supplies; may be left empty.`,
};

// ---- medicine and delivery choices

/** Medicine choices: a custom drug (`drug:<custom_drug_id>`) or a PBS item of the current schedule (`pbs:<pbs_code>`). */
export const medicineValueOfDrug = (customDrugId: string) => `drug:${customDrugId}`;
export const medicineValueOfPbsItem = (pbsCode: string) => `pbs:${pbsCode}`;
const PBS_CHOICE = 'pbs:';

/** The PBS code a medicine choice names, if it names one. */
export const pbsCodeOfChoice = (choice: string): string | undefined => (choice.startsWith(PBS_CHOICE) ? choice.slice(PBS_CHOICE.length) : undefined);

/** Delivery choices: `patient-sms`, `patient-email`, `pharmacy-sms:<id>` or `pharmacy-email:<id>`. */
export function deliveryOfChoice(choice: string): { method: 'SMS' | 'EMAIL'; recipient_type: 'PATIENT' | 'PHARMACY'; pharmacy_id?: string } | undefined {
  const match = /^(patient|pharmacy)-(sms|email)(?::(.{1,64}))?$/.exec(choice);
  if (!match || (match[1] === 'pharmacy') !== (match[3] !== undefined)) return undefined;
  const delivery = { method: match[2] === 'sms' ? ('SMS' as const) : ('EMAIL' as const), recipient_type: match[1] === 'patient' ? ('PATIENT' as const) : ('PHARMACY' as const) };
  return match[3] === undefined ? delivery : { ...delivery, pharmacy_id: match[3] };
}

/**
 * A custom drug's id, or the PBS item chosen written out in full with its code (`pbsItem`: the
 * item the choice names, found in the current schedule). A PBS code the schedule lacks is passed
 * on as a pbs_code, which the service refuses naming it; anything else as a custom_drug_id, which
 * the service refuses as not one the prescriber may use; nothing chosen is the service's
 * "required" issue.
 */
function medicineFieldsOf(choice: string, pbsItem: PbsItem | undefined): Record<string, unknown> {
  if (choice === '') return {};
  const code = pbsCodeOfChoice(choice);
  // A code the schedule lacks goes as it is: the service refuses it, naming the code.
  if (code !== undefined && pbsItem?.pbs_code !== code) return { pbs_code: code };
  if (!pbsItem || code === undefined) return { custom_drug_id: choice.startsWith('drug:') ? choice.slice('drug:'.length) : choice };
  // The schedule's words may run past a prescription's field limits (a combination's strength).
  const cut = (text: string, field: 'item_name' | 'item_form' | 'item_strength') => [...text].slice(0, TEXT_LIMITS[field]).join('');
  const strength = pbsItem.strength ? { item_strength: cut(pbsItem.strength, 'item_strength') } : {};
  return { item_name: cut(pbsItem.drug_name, 'item_name'), item_form: cut(pbsItem.form, 'item_form'), ...strength, pbs_code: pbsItem.pbs_code };
}

/**
 * The prescribe body a submitted form stands for, with the session's reserved values (every
 * event the session causes carries them), and what the form itself got wrong. Empty fields
 * are left out, so the service applies its defaults (a custom drug's quantity, no repeats).
 */
export function prescribeBodyOf(values: FormValues, context: { pbsItem?: PbsItem | undefined; reserved: EventMetadata }) {
  const issues: FieldError[] = [];
  const type = prescriptionTypeOf(values, issues);
  // A paper prescription is handed over, not sent; an electronic one needs where its token goes.
  const delivery = type === 'PAPER' ? undefined : deliveryOfChoice(values.send_to);
  if (type === 'ELECTRONIC' && !delivery) issues.push({ field: 'send_to', message: REQUIRED_PHRASES.send_to, code: 'REQUIRED_FIELD' });
  const schedule = scheduleFieldOf(values, issues);
  const details = detailFieldsOf(values);
  issues.push(...details.issues);
  const optional = Object.fromEntries(
    (['quantity', 'repeats', 'repeat_interval_days', 'patient_instructions', 'doctor_instructions'] as const).flatMap((field) => (values[field] === '' ? [] : [[field, values[field]]])),
  );
  const body = { ...medicineFieldsOf(values.medicine, context.pbsItem), ...schedule, ...details.fields, ...optional, ...(type === 'PAPER' ? { prescription_type: 'PAPER' } : {}), ...(delivery ? { delivery } : {}), ...context.reserved };
  return { body, issues };
}

/** The form's choice (empty: electronic, the default); anything else is refused on the field. */
function prescriptionTypeOf(values: FormValues, issues: FieldError[]): 'ELECTRONIC' | 'PAPER' | undefined {
  if (values.prescription_type === '' || values.prescription_type === 'ELECTRONIC') return 'ELECTRONIC';
  if (values.prescription_type === 'PAPER') return 'PAPER';
  issues.push({ field: 'prescription_type', message: 'must be ELECTRONIC or PAPER', code: 'VALIDATION_ERROR' });
  return undefined;
}

/** The schedule chosen (over the entry's own), or none; a custom drug keeps its own, so choosing one for it is refused. */
function scheduleFieldOf(values: FormValues, issues: FieldError[]): { schedule_number?: string } {
  if (values.schedule_number === '') return {};
  if (!(SCHEDULE_CHOICES as readonly string[]).includes(values.schedule_number)) {
    issues.push({ field: 'schedule_number', message: `must be one of ${SCHEDULE_CHOICES.join(', ')}`, code: 'VALIDATION_ERROR' });
    return {};
  }
  if (values.medicine.startsWith('drug:')) {
    issues.push({ field: 'schedule_number', message: "A custom drug keeps its own schedule: leave this as it is.", code: 'VALIDATION_ERROR' });
    return {};
  }
  return { schedule_number: values.schedule_number };
}

// ---- issues back onto the form

/** The form field each prescribe body field the form fills comes from (the others: the form as a whole). */
const FORM_FIELD_OF_BODY: Readonly<Partial<Record<keyof PrescribeBody, FormField>>> = {
  custom_drug_id: 'medicine',
  ...Object.fromEntries(ITEM_FIELDS.map((field) => [field, 'medicine'])),
  ...Object.fromEntries(DETAIL_FIELDS.map((field) => [field, field])),
  quantity: 'quantity',
  repeats: 'repeats',
  repeat_interval_days: 'repeat_interval_days',
  patient_instructions: 'patient_instructions',
  doctor_instructions: 'doctor_instructions',
  delivery: 'send_to',
  prescription_type: 'prescription_type',
};

/** `delivery.pharmacy_id` → `delivery`, `items[0].x` → `items`. */
function topLevelName(field: string): string {
  const end = [field.indexOf('.'), field.indexOf('[')].filter((at) => at >= 0);
  return end.length === 0 ? field : field.slice(0, Math.min(...end));
}

/** The form field an error is about: a prescribe body's field, or the form's own; undefined: the form as a whole. */
export function formFieldOf(errorField: string): FormField | undefined {
  const name = topLevelName(errorField);
  if (Object.hasOwn(FORM_FIELD_OF_BODY, name)) return FORM_FIELD_OF_BODY[name as keyof PrescribeBody];
  return (FORM_FIELDS as readonly string[]).includes(name) ? (name as FormField) : undefined;
}

export interface FormErrors {
  fields: Partial<Record<FormField, string[]>>;
  /** Issues no single field owns. */
  general: string[];
}

/** What the prescriber is told when a field is required and empty. */
const REQUIRED_PHRASES: Readonly<Record<FormField, string>> = {
  medicine: 'Choose a medicine.',
  quantity: "Enter a quantity, or choose a custom drug (its own quantity is used).",
  repeats: 'Enter the number of repeats.',
  repeat_interval_days: 'Enter the repeat interval in days.',
  patient_instructions: 'Enter the patient instructions.',
  doctor_instructions: 'Enter the doctor instructions.',
  prescription_type: 'Choose electronic or paper.',
  send_to: 'Choose where the token goes.',
  ...(Object.fromEntries(DETAIL_FIELDS.map((field) => [field, `Enter the ${DETAIL_LABELS[field].toLowerCase()}.`])) as Record<DetailField, string>),
};

/** A service message as a sentence: one about the field ("must be ...", "is not ...") follows its label. */
function asSentence(label: string, message: string): string {
  if (/^(must|is|are)\b/.test(message)) return `${label} ${message}`;
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** The field the focus goes to when the form comes back refused: the first one in error, in the form's order. */
export function firstFieldInError(errors: FormErrors): FormField | undefined {
  return FORM_ORDER.find((field) => (errors.fields[field]?.length ?? 0) > 0);
}

/** Each field error under its field, phrased for the prescriber (a required field simply says so). */
export function formErrorsOf(issues: readonly FieldError[]): FormErrors {
  const errors: FormErrors = { fields: {}, general: [] };
  for (const found of issues) {
    const field = formFieldOf(found.field);
    if (!field) {
      errors.general.push(`${found.field}: ${found.message}`);
      continue;
    }
    const message = found.code === 'REQUIRED_FIELD' ? REQUIRED_PHRASES[field] : asSentence(FIELD_LABELS[field], found.message);
    const list = (errors.fields[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}
