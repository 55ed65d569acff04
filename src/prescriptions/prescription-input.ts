// Reading a prescribe body into what will be stored, with every check a schema cannot make:
// the medicine (a custom drug by custom_drug_id, copied, or an item written in full, not
// both), the count ranges (which a copied drug's values must meet too), the drug's
// max_repeats, and where the delivery goes. Each failure is one issue; together with the
// schema's they leave as one 422. A field the schema already refused is not judged again.
import type { CustomDrug } from '../custom-drugs/index.ts';
import type { ValidationIssue } from '../platform/http/api-error.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import { resolveDelivery, type DeliveryColumns, type PatientContact } from './prescription-delivery.ts';
import { BOOLEAN_FLAGS, describeCountLimit, ITEM_FIELDS, readCount, type BooleanFlag, type CountField, type ItemField } from './prescription-fields.ts';
import type { PrescribeBody } from './prescriptions-schemas.ts';

/** A prescription as the body (and the drug it names) describe it, ready to store. */
export interface PrescriptionDraft {
  item: Record<ItemField, string | null> & { item_name: string };
  customDrug: { custom_drug_id: string; custom_product_id: string | null } | null;
  quantity: number;
  repeats: number;
  repeatIntervalDays: number | null;
  reason_for_prescribing: string | null;
  patient_instructions: string | null;
  doctor_notes: string | null;
  flags: Partial<Record<BooleanFlag, boolean>>;
  delivery: DeliveryColumns;
}

type Body = Partial<PrescribeBody> & Record<string, unknown>;

interface Judged {
  issues: ValidationIssue[];
  /** Fields the schema refused: not judged again. */
  refused: Set<string>;
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
  } else if (body.item_name === undefined) {
    judged.issues.push(issue('item_name', 'item_name is required when no custom_drug_id is sent', 'REQUIRED_FIELD'));
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

function itemOf(body: Body, drug: CustomDrug | undefined): PrescriptionDraft['item'] {
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
  const item = Object.fromEntries(ITEM_FIELDS.map((field) => [field, (body[field] as string | undefined) ?? null]));
  return item as PrescriptionDraft['item'];
}

function flagsOf(body: Body): PrescriptionDraft['flags'] {
  return Object.fromEntries(BOOLEAN_FLAGS.flatMap((flag) => (typeof body[flag] === 'boolean' ? [[flag, body[flag]]] : [])));
}

/**
 * The draft a prescribe body describes, or the issues that refuse it. `drug` is the custom
 * drug its custom_drug_id names (undefined when it names none, or none was sent).
 */
export function readPrescribeBody(
  submitted: SubmittedBody,
  context: { drug: CustomDrug | undefined; patient: PatientContact },
): { draft?: PrescriptionDraft; issues: ValidationIssue[] } {
  const body = bodyFields(submitted) as Body;
  const judged: Judged = { issues: [], refused: new Set(submitted.issues.map((entry) => entry.field)) };
  const { drug } = context;
  judgeMedicine(body, drug, judged);
  const { quantity, repeats, interval } = judgeCounts(body, drug, judged);
  const delivery = resolveDelivery(body.delivery, context.patient);
  judged.issues.push(...delivery.issues);
  if (submitted.issues.length > 0 || judged.issues.length > 0 || quantity === undefined || repeats === undefined || !delivery.columns) {
    return { issues: judged.issues };
  }
  const draft: PrescriptionDraft = {
    item: itemOf(body, drug),
    customDrug: drug ? { custom_drug_id: drug.custom_drug_id, custom_product_id: drug.custom_product_id ?? null } : null,
    quantity,
    repeats,
    repeatIntervalDays: interval ?? null,
    reason_for_prescribing: body.reason_for_prescribing ?? null,
    patient_instructions: body.patient_instructions ?? drug?.patient_instructions ?? null,
    doctor_notes: body.doctor_instructions ?? drug?.doctor_instructions ?? null,
    flags: flagsOf(body),
    delivery: delivery.columns,
  };
  return { draft, issues: [] };
}
