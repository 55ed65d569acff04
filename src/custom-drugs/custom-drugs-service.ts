// What the custom drug catalog does: bulk-create an organization catalog item by item, create
// a prescriber's own drug, list, partially update and delete, always within the caller's
// organization and recording who made each change and when. Each operation finds what its path
// names first (the path user, the drug: 404), then reads the body (400, 422).
import type { Insertable, Kysely } from 'kysely';
import { ApiError, invalidRequest, notFound, validationFailed, type ValidationIssue } from '../platform/http/api-error.ts';
import type { Clock } from '../platform/clock.ts';
import type { CustomDrugsTable, Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { MAX_REPORTED_ISSUES } from '../platform/http/error-handler.ts';
import { isUuid, newId } from '../platform/ids.ts';
import type { Principal } from '../auth/index.ts';
import type { SubmittedBody } from '../platform/http/body-validation.ts';
import type { Deps } from '../deps.ts';
import { requireOrganizationUser, type UsersContext } from '../users/index.ts';
import {
  CUSTOM_DRUG_FIELD_NAMES,
  type CustomDrug,
  type CustomDrugField,
  type CustomDrugInput,
  type CustomDrugPatch,
  type RequiredOnCreate,
} from './custom-drugs-fields.ts';
import type { DrugLevel } from './custom-drugs-schemas.ts';
import { readBulkItems, readCustomDrugInput, readCustomDrugPatch } from './custom-drugs-input.ts';
import {
  findCustomDrugs,
  findCustomDrugsVisibleToUser,
  findLiveDrugVisibleToUser,
  insertCustomDrugs,
  searchCustomDrugsVisibleToUser,
  countLiveDrugsOfOrganization,
  releaseCustomDrugPlaces,
  reserveCustomDrugPlaces,
  isLiveDrug,
  markCustomDrugsDeleted,
  updateLiveDrug,
  type DrugOwner,
} from './custom-drugs-store.ts';

export interface CustomDrugsContext {
  db: Kysely<Database>;
  clock: Clock;
  /** Path users of prescriber-level routes belong to the caller's organization. */
  users: UsersContext;
  /** Most live custom drugs one organization holds, catalog and users' own together (ERX_CUSTOM_DRUGS_MAX). */
  maxDrugsPerOrganization: number;
  /** Every change commits through it, with the records it leaves. */
  unitOfWork: UnitOfWork;
}

export function createCustomDrugsContext(deps: Pick<Deps, 'database' | 'clock' | 'config'>, features: { users: UsersContext; unitOfWork: UnitOfWork }): CustomDrugsContext {
  return { db: deps.database, clock: deps.clock, ...features, maxDrugsPerOrganization: deps.config.customDrugsMax };
}

/**
 * Inside the inserting transaction: 422 when `adding` more drugs would take the organization
 * past its limit, naming the first that does not fit (`field`: '' for a single drug, `[i]` in
 * a bulk body). The places are taken from the organization's count in the same transaction,
 * by one conditional UPDATE, so concurrent inserts cannot both take the last ones.
 */
async function requireRoomForDrugs(ctx: CustomDrugsContext, trx: Kysely<Database>, organizationId: string, adding: Array<{ field: string }>): Promise<void> {
  if (await reserveCustomDrugPlaces(trx, organizationId, adding.length, ctx.maxDrugsPerOrganization)) return;
  const held = await countLiveDrugsOfOrganization(trx, organizationId);
  const room = Math.max(0, ctx.maxDrugsPerOrganization - held);
  if (adding.length <= room) return;
  const message = `would take the organization past its limit of ${ctx.maxDrugsPerOrganization} custom drugs (it holds ${held}); delete some first`;
  throw validationFailed([{ field: adding[room]!.field, message, code: 'VALIDATION_ERROR' }], `This organization may hold at most ${ctx.maxDrugsPerOrganization} custom drugs`);
}

/** The bulk response lists at most this many failures (failureCount still counts them all). */
export const BULK_FAILURES_REPORTED = 50;

const DRUG_NOT_FOUND = 'Custom drug not found';

export type UserDrugOwner = DrugOwner & { userId: string };

function organizationCatalogOf(principal: Principal): DrugOwner {
  return { organizationId: principal.organizationId, userId: null };
}

/** Who asks for a user's drugs: a bearer Principal, or a portal session (its own user). */
type DrugsCaller = Pick<Principal, 'organizationId' | 'userId'>;

/** The path user's own drugs; 404 when the user is not in the caller's organization. */
async function userDrugsOf(ctx: CustomDrugsContext, principal: DrugsCaller, pathUserId: string): Promise<UserDrugOwner> {
  const userId = await requireOrganizationUser(ctx.users, principal, pathUserId);
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

/** A drug of the path user's own. */
export async function createUserCustomDrug(ctx: CustomDrugsContext, principal: Principal, pathUserId: string, body: SubmittedBody): Promise<CustomDrug> {
  const owner = await userDrugsOf(ctx, principal, pathUserId);
  const row = newDrugRow(owner, principal.userId, ctx.clock.now().toISOString(), readCustomDrugInput(body));
  await ctx.unitOfWork.run(async ({ trx }) => {
    await requireRoomForDrugs(ctx, trx, owner.organizationId, [{ field: '' }]);
    await insertCustomDrugs(trx, [row]);
  });
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
function everyItemFailed(items: ReturnType<typeof readBulkItems>): ApiError {
  const issues = items.flatMap((item) =>
    item.issues.map((issue) => ({ ...issue, field: `[${item.index - 1}]${issue.field ? `.${issue.field}` : ''}` })),
  );
  const detail = `No custom drug was created: all ${items.length} items failed; error.validation lists why`;
  return new ApiError('INVALID_REQUEST', detail, issues.slice(0, MAX_REPORTED_ISSUES));
}

/** Creates every valid item (in one transaction); invalid items fail alone. 400 when none was created. */
export async function createOrganizationCustomDrugs(ctx: CustomDrugsContext, principal: Principal, body: SubmittedBody): Promise<BulkCreateResult> {
  const items = readBulkItems(body);
  const owner = organizationCatalogOf(principal);
  const at = ctx.clock.now().toISOString();
  const valid = items.flatMap((item) => (item.input ? [{ index: item.index, row: newDrugRow(owner, principal.userId, at, item.input) }] : []));
  const failed = items.filter((item) => !item.input);
  if (valid.length === 0) throw everyItemFailed(items);
  await ctx.unitOfWork.run(async ({ trx }) => {
    await requireRoomForDrugs(ctx, trx, owner.organizationId, valid.map((entry) => ({ field: `[${entry.index - 1}]` })));
    await insertCustomDrugs(trx, valid.map((entry) => entry.row));
  });
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

/** The organization catalog, optionally only the drugs with this custom_product_id (exact match). */
export async function listCatalogDrugs(ctx: CustomDrugsContext, principal: Principal, customProductId?: string): Promise<CustomDrug[]> {
  return (await findCustomDrugs(ctx.db, organizationCatalogOf(principal), customProductId)).map(toCustomDrug);
}

/** A user's combined list: the organization catalog and the user's own drugs, each marked. */
export async function listDrugsVisibleToUser(ctx: CustomDrugsContext, principal: DrugsCaller, pathUserId: string): Promise<Array<CustomDrug & { level: DrugLevel }>> {
  const owner = await userDrugsOf(ctx, principal, pathUserId);
  const rows = await findCustomDrugsVisibleToUser(ctx.db, owner.organizationId, owner.userId);
  return rows.map((row) => Object.assign(toCustomDrug(row), { level: row.user_id === null ? ('organization' as const) : ('user' as const) }));
}

/**
 * The drugs a prescriber may choose from that match `search`, at most `limit` of them (the
 * catalog's first), and whether more match; for the portal's medicine list.
 */
export async function searchDrugsVisibleToUser(
  ctx: CustomDrugsContext,
  caller: DrugsCaller,
  query: { search: string; limit: number; /** A drug to list whether it matches or not (the one chosen), if the caller may use it. */ alsoId?: string | undefined },
): Promise<{ drugs: Array<CustomDrug & { level: DrugLevel }>; more: boolean }> {
  const rows = await searchCustomDrugsVisibleToUser(ctx.db, caller, query.search, query.limit + 1);
  const listed = rows.slice(0, query.limit);
  const alsoId = query.alsoId?.toLowerCase();
  if (alsoId !== undefined && isUuid(alsoId) && !listed.some((row) => row.id === alsoId)) {
    const chosen = await findLiveDrugVisibleToUser(ctx.db, caller.organizationId, caller.userId, alsoId);
    if (chosen) listed.push(chosen);
  }
  const drugs = listed.map((row) => Object.assign(toCustomDrug(row), { level: row.user_id === null ? ('organization' as const) : ('user' as const) }));
  return { drugs, more: rows.length > query.limit };
}

/**
 * A drug the user may prescribe by its custom_drug_id: one of the organization catalog or of
 * the user's own (another user's is not found). Undefined when there is none.
 */
export async function findPrescribableDrug(ctx: CustomDrugsContext, organizationId: string, userId: string, drugId: string): Promise<CustomDrug | undefined> {
  if (!isUuid(drugId)) return undefined;
  const row = await findLiveDrugVisibleToUser(ctx.db, organizationId, userId, drugId.toLowerCase());
  return row ? toCustomDrug(row) : undefined;
}

/**
 * Changes only the supplied fields; 404 unless the drug is the owner's. A valid body goes
 * straight to the one UPDATE that also finds the drug (every drug edit runs this); an invalid
 * one is refused only once the drug is known to exist, so a missing drug is 404 either way.
 */
async function updateDrugOf(ctx: CustomDrugsContext, actorId: string, owner: DrugOwner, drugId: string, body: SubmittedBody): Promise<CustomDrug> {
  const id = drugId.toLowerCase();
  let patch: CustomDrugPatch;
  try {
    patch = readCustomDrugPatch(body);
  } catch (error) {
    if (!(await isLiveDrug(ctx.db, owner, id))) throw notFound(DRUG_NOT_FOUND);
    throw error;
  }
  const changes = Object.assign(storedFields(patch), { updated_at: ctx.clock.now().toISOString(), updated_by: actorId });
  const row = await updateLiveDrug(ctx.db, owner, id, changes);
  if (!row) throw notFound(DRUG_NOT_FOUND);
  return toCustomDrug(row);
}

export function updateCatalogDrug(ctx: CustomDrugsContext, principal: Principal, drugId: string, body: SubmittedBody): Promise<CustomDrug> {
  return updateDrugOf(ctx, principal.userId, organizationCatalogOf(principal), drugId, body);
}

export async function updateUserDrug(ctx: CustomDrugsContext, principal: Principal, pathUserId: string, drugId: string, body: SubmittedBody): Promise<CustomDrug> {
  return updateDrugOf(ctx, principal.userId, await userDrugsOf(ctx, principal, pathUserId), drugId, body);
}

/** Marks the owner's live drugs deleted (one when `id` is given) and gives their places back, in one transaction; returns how many. */
function markDeletedAndRelease(ctx: CustomDrugsContext, owner: DrugOwner, stamp: { deleted_at: string; deleted_by: string }, id?: string): Promise<number> {
  return ctx.unitOfWork.run(async ({ trx }) => {
    const removed = await markCustomDrugsDeleted(trx, owner, stamp, id);
    if (removed > 0) await releaseCustomDrugPlaces(trx, owner.organizationId, removed);
    return removed;
  });
}

/** Idempotent: deleting a drug that is not (or no longer) the owner's changes nothing. */
async function deleteDrugOf(ctx: CustomDrugsContext, actorId: string, owner: DrugOwner, drugId: string): Promise<{ custom_drug_id: string }> {
  const id = drugId.toLowerCase();
  await markDeletedAndRelease(ctx, owner, { deleted_at: ctx.clock.now().toISOString(), deleted_by: actorId }, id);
  return { custom_drug_id: id };
}

export function deleteCatalogDrug(ctx: CustomDrugsContext, principal: Principal, drugId: string): Promise<{ custom_drug_id: string }> {
  return deleteDrugOf(ctx, principal.userId, organizationCatalogOf(principal), drugId);
}

export async function deleteUserDrug(ctx: CustomDrugsContext, principal: Principal, pathUserId: string, drugId: string): Promise<{ custom_drug_id: string }> {
  return deleteDrugOf(ctx, principal.userId, await userDrugsOf(ctx, principal, pathUserId), drugId);
}

/** Deletes the whole organization catalog (user-level drugs stay); only with confirm=true. */
export async function deleteOrganizationCatalog(ctx: CustomDrugsContext, principal: Principal, confirm: string | undefined): Promise<{ deleted_count: number }> {
  if (confirm !== 'true') throw invalidRequest('Deleting the whole organization catalog requires the query parameter confirm=true');
  const stamp = { deleted_at: ctx.clock.now().toISOString(), deleted_by: principal.userId };
  return { deleted_count: await markDeletedAndRelease(ctx, organizationCatalogOf(principal), stamp) };
}
