// What the custom drug catalog does: bulk-create an organization catalog item by item, create
// a prescriber's own drug, list, partially update and delete, always within the caller's
// organization and recording who made each change and when.
import type { Insertable, Kysely } from 'kysely';
import { ApiError, invalidRequest, notFound, type ValidationIssue } from '../platform/api-error.ts';
import type { Clock } from '../platform/clock.ts';
import type { CustomDrugsTable, Database } from '../platform/database-schema.ts';
import { MAX_REPORTED_ISSUES } from '../platform/error-handler.ts';
import { newId } from '../platform/ids.ts';
import type { Principal } from '../platform/route-auth.ts';
import { requireOrganizationUser } from '../users/users-service.ts';
import {
  CUSTOM_DRUG_FIELD_NAMES,
  type CustomDrug,
  type CustomDrugField,
  type CustomDrugInput,
  type CustomDrugPatch,
  type RequiredOnCreate,
} from './custom-drugs-fields.ts';
import type { BulkItem } from './custom-drugs-input.ts';
import type { DrugLevel } from './custom-drugs-schemas.ts';
import {
  findCustomDrugs,
  findCustomDrugsVisibleToUser,
  insertCustomDrugs,
  markCustomDrugsDeleted,
  type LiveDrugUpdater,
  type DrugOwner,
} from './custom-drugs-store.ts';

export interface CustomDrugContext {
  db: Kysely<Database>;
  clock: Clock;
  /** Compiled per column set: every drug edit runs it. */
  updateLiveDrug: LiveDrugUpdater;
}

/** The bulk response lists at most this many failures (failureCount still counts them all). */
export const BULK_FAILURES_REPORTED = 50;

const DRUG_NOT_FOUND = 'Custom drug not found';

export type UserDrugOwner = DrugOwner & { userId: string };

export function organizationCatalogOf(principal: Principal): DrugOwner {
  return { organizationId: principal.organizationId, userId: null };
}

/** The path user's own drugs; 404 when the user is not in the caller's organization. */
export async function userDrugsOf(ctx: CustomDrugContext, principal: Principal, pathUserId: string): Promise<UserDrugOwner> {
  const userId = await requireOrganizationUser(ctx.db, principal, pathUserId);
  return { organizationId: principal.organizationId, userId };
}

/** A stored row as partners see it: unset fields are left out, never sent as null. */
function toCustomDrug(row: { id: string } & Partial<Record<CustomDrugField, string | null>>): CustomDrug {
  const drug: CustomDrug = { custom_drug_id: row.id };
  for (const name of CUSTOM_DRUG_FIELD_NAMES) {
    const value = row[name];
    if (value !== null && value !== undefined) drug[name] = value;
  }
  return drug;
}

/**
 * Field values as stored: an empty optional field is not set (null). Required fields cannot
 * be empty (their schema has minLength 1 or a pattern), so they never become null.
 */
function storedFields<T extends CustomDrugPatch>(fields: T): { [K in keyof T]: K extends RequiredOnCreate ? T[K] : T[K] | null } {
  const stored: Record<string, string | null> = {};
  for (const name of Object.keys(fields) as (keyof T & string)[]) {
    const value = fields[name] as string;
    stored[name] = value === '' ? null : value;
  }
  return stored as never;
}

function newDrugRow(owner: DrugOwner, actorId: string, at: string, input: CustomDrugInput): Insertable<CustomDrugsTable> {
  return Object.assign(storedFields(input), {
    id: newId(),
    organization_id: owner.organizationId,
    user_id: owner.userId,
    created_at: at,
    created_by: actorId,
    updated_at: at,
    updated_by: actorId,
  });
}

export async function createCustomDrug(ctx: CustomDrugContext, actorId: string, owner: DrugOwner, input: CustomDrugInput): Promise<CustomDrug> {
  const row = newDrugRow(owner, actorId, ctx.clock.now().toISOString(), input);
  await insertCustomDrugs(ctx.db, [row]);
  return toCustomDrug(row);
}

export interface BulkCreateResult {
  total: number;
  successCount: number;
  failureCount: number;
  failures: Array<{ index: number; error: string }>;
  created: Array<{ index: number; custom_drug_id: string; custom_product_id?: string }>;
}

function describeIssues(issues: ValidationIssue[]): string {
  return issues.map((issue) => (issue.message.startsWith(issue.field) ? issue.message : `${issue.field} ${issue.message}`.trim())).join('; ');
}

/** 400 for a bulk request whose every item failed; fields are JSON paths (`[0].poison_class`). */
function everyItemFailed(items: BulkItem[]): ApiError {
  const issues = items.flatMap((item) =>
    item.issues.map((issue) => ({ ...issue, field: `[${item.index - 1}]${issue.field ? `.${issue.field}` : ''}` })),
  );
  const detail = `No custom drug was created: all ${items.length} items failed; error.validation lists why`;
  return new ApiError('INVALID_REQUEST', detail, issues.slice(0, MAX_REPORTED_ISSUES));
}

/** Creates every valid item (in one transaction); invalid items fail alone. 400 when none was created. */
export async function createOrganizationCustomDrugs(ctx: CustomDrugContext, principal: Principal, items: BulkItem[]): Promise<BulkCreateResult> {
  const owner = organizationCatalogOf(principal);
  const at = ctx.clock.now().toISOString();
  const valid = items.flatMap((item) => (item.input ? [{ index: item.index, row: newDrugRow(owner, principal.userId, at, item.input) }] : []));
  const failed = items.filter((item) => !item.input);
  if (valid.length === 0) throw everyItemFailed(items);
  await ctx.db.transaction().execute((trx) => insertCustomDrugs(trx, valid.map((entry) => entry.row)));
  return {
    total: items.length,
    successCount: valid.length,
    failureCount: failed.length,
    failures: failed.slice(0, BULK_FAILURES_REPORTED).map((item) => ({ index: item.index, error: describeIssues(item.issues) })),
    created: valid.map(({ index, row }) => ({
      index,
      custom_drug_id: row.id,
      ...(row.custom_product_id ? { custom_product_id: row.custom_product_id } : {}),
    })),
  };
}

export async function listCustomDrugs(ctx: CustomDrugContext, owner: DrugOwner, customProductId?: string): Promise<CustomDrug[]> {
  return (await findCustomDrugs(ctx.db, owner, customProductId)).map(toCustomDrug);
}

/** A user's combined list: the organization catalog and the user's own drugs, each marked. */
export async function listDrugsVisibleToUser(ctx: CustomDrugContext, owner: UserDrugOwner): Promise<Array<CustomDrug & { level: DrugLevel }>> {
  const rows = await findCustomDrugsVisibleToUser(ctx.db, owner.organizationId, owner.userId);
  return rows.map((row) => Object.assign(toCustomDrug(row), { level: row.user_id === null ? ('organization' as const) : ('user' as const) }));
}

/** Changes only the supplied fields; 404 unless the drug is the owner's. */
export async function updateCustomDrug(
  ctx: CustomDrugContext,
  actorId: string,
  owner: DrugOwner,
  drugId: string,
  patch: CustomDrugPatch,
): Promise<CustomDrug> {
  const changes = Object.assign(storedFields(patch), { updated_at: ctx.clock.now().toISOString(), updated_by: actorId });
  const row = await ctx.updateLiveDrug(owner, drugId.toLowerCase(), changes);
  if (!row) throw notFound(DRUG_NOT_FOUND);
  return toCustomDrug(row);
}

/** Idempotent: deleting a drug that is not (or no longer) the owner's changes nothing. */
export async function deleteCustomDrug(ctx: CustomDrugContext, actorId: string, owner: DrugOwner, drugId: string): Promise<void> {
  await markCustomDrugsDeleted(ctx.db, owner, { deleted_at: ctx.clock.now().toISOString(), deleted_by: actorId }, drugId.toLowerCase());
}

/** Deletes the whole organization catalog (user-level drugs stay); only with confirm=true. */
export async function deleteOrganizationCatalog(ctx: CustomDrugContext, principal: Principal, confirm: string | undefined): Promise<{ deleted_count: number }> {
  if (confirm !== 'true') throw invalidRequest('Deleting the whole organization catalog requires the query parameter confirm=true');
  const stamp = { deleted_at: ctx.clock.now().toISOString(), deleted_by: principal.userId };
  return { deleted_count: await markCustomDrugsDeleted(ctx.db, organizationCatalogOf(principal), stamp) };
}
