// Reading a prescribe body into what will be stored, with every check a schema cannot make:
// the medicine (a custom drug by custom_drug_id, copied, or an item written in full, not
// both), the count ranges (which a copied drug's values must meet too), the drug's
// max_repeats, and where the delivery goes. Each failure is one field error; with the
// schema's they make the body's refusal. A field the schema already refused is not judged again.
import type { CustomDrug } from '../custom-drugs/index.ts';
import type { ValidationIssue } from '../platform/http/api-error.ts';
import { readBody, type BodyRead, type SentBody, type SubmittedBody } from '../platform/http/body-validation.ts';
import { NO_DELIVERY, resolveDelivery, type DeliveryColumns, type PatientContact } from './prescription-delivery.ts';
import type { PrescriptionType } from '../platform/db/stored-values.ts';
import {
  AUTHORITY_FIELDS,
  BOOLEAN_FLAGS,
  describeCountLimit,
  ITEM_FIELDS,
  readCount,
  TEXT_LIMITS,
  type AuthorityField,
  type BooleanFlag,
  type CountField,
  type ItemField,
  type NoteField,
} from './prescription-fields.ts';
import { judgeRules, type PbsItem } from './prescription-rules.ts';
import { judgeControlledMedicine, type ControlledFacts } from '../controlled-medicines/index.ts';
import type { AustralianState } from '../platform/db/stored-values.ts';
import { PrescribeBody } from './prescriptions-schemas.ts';

/** A prescription as the body (and the drug it names) describe it, ready to store. */
export interface PrescriptionDraft {
  prescriptionType: PrescriptionType;
  item: Record<ItemField, string | null> & { item_name: string };
  customDrug: { custom_drug_id: string; custom_product_id: string | null } | null;
  quantity: number;
  repeats: number;
  repeatIntervalDays: number | null;
  notes: Record<NoteField, string | null>;
  authority: Record<AuthorityField, string | null>;
  doctor_notes: string | null;
  flags: Partial<Record<BooleanFlag, boolean>>;
  delivery: DeliveryColumns;
}

type Body = SentBody<typeof PrescribeBody>;

interface Judged {
  issues: ValidationIssue[];
  /** Fields the schema refused: not judged again. */
  refused: ReadonlySet<string>;
}

const issue = (field: string, message: string, code: ValidationIssue['code'] = 'VALIDATION_ERROR'): ValidationIssue => ({ field, message, code });

function judgeMedicine(body: Body, drug: CustomDrug | undefined, judged: Judged): void {
  const sentItems = ITEM_FIELDS.filter((field) => body[field] !== undefined);
  if (body.custom_drug_id !== undefined) {
    if (judged.refused.has('custom_drug_id')) return;
    if (sentItems.length > 0) {
      judged.issues.push(issue('custom_drug_id', `send either custom_drug_id or the item fields (${sentItems.join(', ')}), not both`));
    } else if (!drug) {
      judged.issues.push(issue('custom_drug_id', "is not a drug of the organization catalog or of the prescriber's own"));
    }
  } else if (body.item_name === undefined && body.pbs_code === undefined) {
    judged.issues.push(issue('item_name', 'item_name is required when no custom_drug_id or pbs_code is sent', 'REQUIRED_FIELD'));
  }
}

/** A count from the body, else from the drug, else the default; undefined when it is refused (the issue is added). */
function judgeCount(field: CountField, sent: unknown, fallback: { value: unknown; from?: string }, judged: Judged): number | undefined {
  if (judged.refused.has(field)) return undefined;
  const value = sent ?? fallback.value;
  if (value === undefined) return undefined;
  const count = readCount(field, value);
  if (count !== undefined) return count;
  const origin = sent === undefined && fallback.from ? ` (${fallback.from} is ${String(value)}; send ${field})` : '';
  judged.issues.push(issue(field, `${describeCountLimit(field)}${origin}`));
  return undefined;
}

function judgeCounts(body: Body, drug: CustomDrug | undefined, judged: Judged) {
  const quantity = judgeCount('quantity', body.quantity, { value: drug?.quantity, from: "the custom drug's quantity" }, judged);
  if (body.quantity === undefined && drug === undefined && body.custom_drug_id === undefined) {
    judged.issues.push(issue('quantity', 'quantity is required when no custom_drug_id is sent', 'REQUIRED_FIELD'));
  }
  const repeats = judgeCount('repeats', body.repeats, { value: 0 }, judged);
  const maxRepeats = drug ? Number(drug.max_repeats) : Number.POSITIVE_INFINITY;
  if (repeats !== undefined && repeats > maxRepeats) {
    judged.issues.push(issue('repeats', `must not exceed the custom drug's max_repeats (${maxRepeats})`));
  }
  const interval = judgeCount('repeat_interval_days', body.repeat_interval_days, { value: undefined }, judged);
  return { quantity, repeats, interval };
}

/** The item fields: a custom drug's, else the body's, a PBS item's names filling those the body leaves out. */
function itemOf(body: Body, drug: CustomDrug | undefined, pbsItem: PbsItem | undefined): PrescriptionDraft['item'] {
  if (drug) {
    return {
      item_name: drug.item_generic_name ?? '',
      item_strength: drug.item_strength ?? null,
      item_form: drug.item_form ?? null,
      route_administration: drug.route_of_administration ?? null,
      pbs_code: null,
      schedule_number: drug.poison_class ?? null,
    };
  }
  const item = Object.fromEntries(ITEM_FIELDS.map((field) => [field, (body[field] as string | undefined) ?? null])) as PrescriptionDraft['item'];
  if (item.pbs_code !== null) item.pbs_code = item.pbs_code.toUpperCase();
  if (!pbsItem) return item;
  // The schedule's words may run past a prescription's field limits (a combination's strength).
  const cut = (text: string | undefined, field: 'item_name' | 'item_strength' | 'item_form') => (text === undefined ? null : [...text].slice(0, TEXT_LIMITS[field]).join(''));
  return {
    ...item,
    item_name: item.item_name ?? cut(pbsItem.drug_name, 'item_name')!,
    item_strength: item.item_strength ?? cut(pbsItem.strength, 'item_strength'),
    item_form: item.item_form ?? cut(pbsItem.form, 'item_form'),
  };
}

function flagsOf(body: Body): PrescriptionDraft['flags'] {
  return Object.fromEntries(BOOLEAN_FLAGS.flatMap((flag) => (typeof body[flag] === 'boolean' ? [[flag, body[flag]]] : [])));
}

interface Context {
  /** The custom drug the body's custom_drug_id names (undefined when it names none, or none was sent). */
  drug: CustomDrug | undefined;
  /** The PBS item the body's pbs_code names (undefined when it names none, or none was sent). */
  pbsItem: PbsItem | undefined;
  patient: PatientContact & { hasDvaFileNumber: boolean; dateOfBirthVerified: boolean };
  /** The organization's practice state (the state rules it picks); null: not recorded. */
  practiceState: AustralianState | null;
}

const upperOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' ? value.toUpperCase() : undefined);

/** The PBS rules (prescription-rules.ts), on the fields the schema and the counts did not already refuse. */
function judgePbsRules(body: Body, context: Context, counts: { quantity?: number; repeats?: number }, judged: Judged): void {
  const facts = {
    pbsCode: judged.refused.has('pbs_code') ? undefined : upperOrUndefined(body.pbs_code),
    item: context.pbsItem,
    privatePrescription: body.private_prescription === true,
    quantity: counts.quantity,
    repeats: counts.repeats,
    authorityNumber: upperOrUndefined(body.pbsdva_authority_number),
    phoneApprovalNumber: upperOrUndefined(body.phone_approval_authority_number),
    patientHasDvaFileNumber: context.patient.hasDvaFileNumber,
  };
  for (const broken of judgeRules(facts)) if (!judged.refused.has(broken.field)) judged.issues.push(issue(broken.field, broken.message));
}

/** The facts the state rules read (controlled-medicines), from the body as sent and the drug it names. */
export function controlledFactsOf(body: Record<string, unknown>, context: Context): ControlledFacts {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const schedule = text(body.schedule_number) ?? context.drug?.poison_class ?? null;
  const medicineName = [context.drug?.item_generic_name, text(body.item_name), context.pbsItem?.drug_name].filter(Boolean).join(' ');
  const medicineField = body.custom_drug_id !== undefined ? 'custom_drug_id' : body.item_name !== undefined ? 'item_name' : 'pbs_code';
  return {
    state: context.practiceState,
    schedule: schedule === null ? null : schedule.toUpperCase(),
    medicineName,
    repeats: readCount('repeats', body.repeats ?? 0) ?? 0,
    repeatIntervalDays: body.repeat_interval_days === undefined ? null : (readCount('repeat_interval_days', body.repeat_interval_days) ?? null),
    controlledSubstanceReference: text(body.controlled_substance_reference),
    dateOfBirthVerified: context.patient.dateOfBirthVerified,
    medicineField,
  };
}

/** The state rules (controlled-medicines): each refusal beside its field, unless that field is already refused. */
function judgeStateRules(body: Body, context: Context, judged: Judged): void {
  const { refusals } = judgeControlledMedicine(controlledFactsOf(body, context));
  for (const refusal of refusals) {
    if (judged.refused.has(refusal.field) || judged.issues.some((found) => found.field === refusal.field)) continue;
    judged.issues.push(issue(refusal.field, refusal.message));
  }
}

/** Every check of the body, and the values they read. */
function judge(body: Body, context: Context, refused: ReadonlySet<string>) {
  const judged: Judged = { issues: [], refused };
  judgeMedicine(body, context.drug, judged);
  const counts = judgeCounts(body, context.drug, judged);
  judgePbsRules(body, context, counts, judged);
  judgeStateRules(body, context, judged);
  const delivery = judgeDelivery(body, context, judged);
  return { issues: judged.issues, ...counts, delivery };
}

/**
 * An electronic prescription's token goes where delivery says (required); a paper one is
 * handed to the patient, so a delivery sent with it is refused rather than ignored.
 */
function judgeDelivery(body: Body, context: Context, judged: Judged): DeliveryColumns | undefined {
  if (judged.refused.has('delivery') || judged.refused.has('prescription_type')) return undefined;
  if (typeOf(body) === 'PAPER') {
    if (body.delivery === undefined) return NO_DELIVERY;
    judged.issues.push(issue('delivery', 'must be left out of a paper prescription (prescription_type PAPER): it is printed and handed to the patient, not sent'));
    return undefined;
  }
  if (body.delivery === undefined) {
    judged.issues.push(issue('delivery', 'delivery is required', 'REQUIRED_FIELD'));
    return undefined;
  }
  const delivery = resolveDelivery(body.delivery, context.patient);
  judged.issues.push(...delivery.issues);
  return delivery.columns;
}

const typeOf = (body: Body): PrescriptionType => body.prescription_type ?? 'ELECTRONIC';

function draftOf(body: Body, context: Context): PrescriptionDraft {
  const { drug } = context;
  const { quantity, repeats, interval, delivery } = judge(body, context, new Set());
  if (quantity === undefined || repeats === undefined || !delivery) throw new Error('a prescribe body without issues must give a draft');
  return {
    prescriptionType: typeOf(body),
    item: itemOf(body, drug, context.pbsItem),
    customDrug: drug ? { custom_drug_id: drug.custom_drug_id, custom_product_id: drug.custom_product_id ?? null } : null,
    quantity,
    repeats,
    repeatIntervalDays: interval ?? null,
    notes: {
      reason_for_prescribing: body.reason_for_prescribing ?? null,
      patient_instructions: body.patient_instructions ?? drug?.patient_instructions ?? null,
      controlled_substance_reference: body.controlled_substance_reference ?? null,
      annotations: body.annotations ?? null,
    },
    authority: Object.fromEntries(AUTHORITY_FIELDS.map((field) => [field, upperOrUndefined(body[field]) ?? null])) as PrescriptionDraft['authority'],
    doctor_notes: body.doctor_instructions ?? drug?.doctor_instructions ?? null,
    flags: flagsOf(body),
    delivery,
  };
}

/** The draft a prescribe body describes, or every field error that refuses it. */
export function readPrescribeBody(submitted: SubmittedBody, context: Context): BodyRead<PrescriptionDraft> {
  return readBody(PrescribeBody, submitted, {
    errors: (body, refused) => judge(body, context, refused).issues,
    value: (body) => draftOf(body, context),
  });
}
