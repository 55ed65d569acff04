// Reading custom drug request bodies: numbers accepted on create, the "no updatable field"
// rule of update, and splitting a bulk body into items that are valid or fail on their own.
import type { FastifyRequest } from 'fastify';
import { invalidRequest, type ValidationIssue } from '../platform/api-error.ts';
import { throwIfInvalid } from '../platform/body-validation.ts';
import { issuesFromAjv } from '../platform/error-handler.ts';
import { CUSTOM_DRUG_FIELD_NAMES, CUSTOM_DRUG_FIELDS, isCustomDrugField, type CustomDrugInput, type CustomDrugPatch } from './custom-drugs-fields.ts';
import { BULK_MAX_ITEMS } from './custom-drugs-schemas.ts';

type AjvIssue = Parameters<typeof issuesFromAjv>[0][number];

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

export function readCustomDrugInput(request: FastifyRequest): CustomDrugInput {
  throwIfInvalid(request);
  return pickDrugFields(request.body as Record<string, unknown>) as CustomDrugInput;
}

/** The fields an update supplies: 400 when there are none, 422 when any is invalid. */
export function readCustomDrugPatch(request: FastifyRequest): CustomDrugPatch {
  const body = request.body;
  const patch = isPlainObject(body) ? pickDrugFields(body) : {};
  if (Object.keys(patch).length === 0) throw invalidRequest('Body has no updatable fields');
  throwIfInvalid(request);
  return patch as CustomDrugPatch;
}

export interface BulkItem {
  /** 1-based position in the request array. */
  index: number;
  /** Present when the item is valid. */
  input?: CustomDrugInput;
  issues: ValidationIssue[];
}

/** `/3/item_form` → item 3, issue at `/item_form`. */
function groupIssuesByItem(errors: readonly AjvIssue[]): Map<number, AjvIssue[]> {
  const byItem = new Map<number, AjvIssue[]>();
  for (const error of errors) {
    const match = /^\/(\d+)(\/.*)?$/.exec(error.instancePath);
    if (!match) continue;
    const position = Number(match[1]);
    byItem.set(position, [...(byItem.get(position) ?? []), { ...error, instancePath: match[2] ?? '' }]);
  }
  return byItem;
}

/** 400 unless the body is a non-empty array within the limit; then each item judged alone. */
export function readBulkItems(request: FastifyRequest): BulkItem[] {
  const failure = request.validationError as (Error & { validation?: AjvIssue[]; validationContext?: string }) | undefined;
  if (failure && failure.validationContext !== 'body') throwIfInvalid(request);
  const errors = failure?.validation ?? [];
  const body = request.body;
  if (!Array.isArray(body) || errors.some((error) => error.instancePath === '')) {
    throw invalidRequest(`Body must be a non-empty JSON array of at most ${BULK_MAX_ITEMS} custom drugs`);
  }
  const byItem = groupIssuesByItem(errors);
  return body.map((item: unknown, position) => {
    // An issue with the item as a whole names no field (issuesFromAjv would say "body").
    const issues = issuesFromAjv(byItem.get(position) ?? []).map((issue) => (issue.field === 'body' ? { ...issue, field: '' } : issue));
    if (issues.length > 0) return { index: position + 1, issues };
    return { index: position + 1, input: pickDrugFields(item as Record<string, unknown>) as CustomDrugInput, issues };
  });
}
