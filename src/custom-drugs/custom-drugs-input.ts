// Reading custom drug request bodies: numbers accepted on create, the "no updatable field"
// rule of update, and splitting a bulk body into items that are valid or fail on their own.
import type { FastifyRequest } from 'fastify';
import { invalidRequest, type ValidationIssue } from '../platform/http/api-error.ts';
import { bodyFields, readBody, valueOrRefuse, type SubmittedBody } from '../platform/http/body-validation.ts';
import { CUSTOM_DRUG_FIELD_NAMES, CUSTOM_DRUG_FIELDS, isCustomDrugField, type CustomDrugInput, type CustomDrugPatch } from './custom-drugs-fields.ts';
import { BULK_MAX_ITEMS, CustomDrugCreateSchema, CustomDrugUpdateSchema } from './custom-drugs-schemas.ts';

const NUMBER_FIELDS = CUSTOM_DRUG_FIELD_NAMES.filter((name) => CUSTOM_DRUG_FIELDS[name].numberOnCreate);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * preValidation hook of the create routes: a number in a field that accepts one becomes its
 * decimal string, so the schema (strings, as the spec's table types them) judges it (1.5 or
 * -1 then fail the field's pattern like "1.5" or "-1" would).
 */
export async function acceptNumbersOnCreate(request: FastifyRequest): Promise<void> {
  const body = request.body;
  for (const item of Array.isArray(body) ? body : [body]) {
    if (!isPlainObject(item)) continue;
    for (const name of NUMBER_FIELDS) {
      if (typeof item[name] === 'number') item[name] = String(item[name]);
    }
  }
}

/** The drug fields of a body; anything else a partner sends is ignored. */
function pickDrugFields(body: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of Object.keys(body)) {
    if (isCustomDrugField(name)) fields[name] = body[name];
  }
  return fields;
}

export function readCustomDrugInput(body: SubmittedBody): CustomDrugInput {
  return valueOrRefuse(readBody(CustomDrugCreateSchema, body, { value: (input) => pickDrugFields(input) as CustomDrugInput }));
}

/** The fields an update supplies, or why there is none to apply: 400 when there are none, 422 when any is invalid. */
export function readCustomDrugPatch(body: SubmittedBody): CustomDrugPatch {
  const patch = pickDrugFields(bodyFields(body));
  if (Object.keys(patch).length === 0) throw invalidRequest('Body has no updatable fields');
  return valueOrRefuse(readBody(CustomDrugUpdateSchema, body, { value: () => patch as CustomDrugPatch }));
}

export interface BulkItem {
  /** 1-based position in the request array. */
  index: number;
  /** Present when the item is valid. */
  input?: CustomDrugInput;
  issues: ValidationIssue[];
}

/** `[3].item_form` → item 3, field `item_form`; `[3]` → item 3, the item as a whole (no field). */
const ITEM_FIELD = /^\[(\d+)\](?:\.(.*))?$/;

/** 400 unless the body is a non-empty array within the limit; then each item judged alone. */
export function readBulkItems(body: SubmittedBody): BulkItem[] {
  const byItem = new Map<number, ValidationIssue[]>();
  let wholeBodyFails = !Array.isArray(body.value);
  for (const issue of body.issues) {
    const match = ITEM_FIELD.exec(issue.field);
    if (!match) {
      wholeBodyFails = true;
      continue;
    }
    const position = Number(match[1]);
    const field = match[2] ?? '';
    // A required field's message names it: the item's own field, as if the item were the body.
    const message = issue.message.startsWith(`${issue.field} `) ? `${field}${issue.message.slice(issue.field.length)}` : issue.message;
    byItem.set(position, [...(byItem.get(position) ?? []), { ...issue, field, message }]);
  }
  if (wholeBodyFails) throw invalidRequest(`Body must be a non-empty JSON array of at most ${BULK_MAX_ITEMS} custom drugs`);
  return (body.value as unknown[]).map((item, position) => {
    const issues = byItem.get(position) ?? [];
    if (issues.length > 0) return { index: position + 1, issues };
    return { index: position + 1, input: pickDrugFields(item as Record<string, unknown>) as CustomDrugInput, issues };
  });
}
