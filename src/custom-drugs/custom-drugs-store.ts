// Queries of the custom drug catalog. One table holds both levels: `user_id` null is the
// organization catalog, otherwise the drug belongs to that user. Deleted drugs keep their row
// (deleted_at/deleted_by record who and when) and are invisible to every read.
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { CustomDrugsTable, Database } from '../platform/db/database-schema.ts';
import { precompileQuery, type PrecompiledQuery } from '../platform/db/precompiled-query.ts';
import { CUSTOM_DRUG_FIELD_NAMES, type CustomDrugField } from './custom-drugs-fields.ts';

export type CustomDrugRow = Selectable<CustomDrugsTable>;

/** Whose drugs: an organization's catalog (userId null) or one user's own drugs. */
export interface DrugOwner {
  organizationId: string;
  userId: string | null;
}

/** Rows per INSERT: 500 rows x 23 columns stays far below both dialects' parameter limits. */
const INSERT_CHUNK_ROWS = 500;

function liveDrugOf(owner: DrugOwner) {
  return (eb: ExpressionBuilder<Database, 'custom_drugs'>) =>
    eb.and([
      eb('organization_id', '=', owner.organizationId),
      owner.userId === null ? eb('user_id', 'is', null) : eb('user_id', '=', owner.userId),
      eb('deleted_at', 'is', null),
    ]);
}

export async function insertCustomDrugs(db: Kysely<Database>, rows: Insertable<CustomDrugsTable>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_CHUNK_ROWS) {
    await db.insertInto('custom_drugs').values(rows.slice(start, start + INSERT_CHUNK_ROWS)).execute();
  }
}

/**
 * Takes `adding` places of the organization's custom-drug count if they fit under `max`: one
 * conditional UPDATE, so concurrent creates cannot overshoot on either database. False when
 * they do not fit (nothing changed).
 */
export async function reserveCustomDrugPlaces(db: Kysely<Database>, organizationId: string, adding: number, max: number): Promise<boolean> {
  const result = await db
    .updateTable('organizations')
    .set((eb) => ({ custom_drugs_held: eb('custom_drugs_held', '+', adding) }))
    .where('id', '=', organizationId)
    .where((eb) => eb(eb('custom_drugs_held', '+', adding), '<=', max))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives back the places of `removed` drugs that were deleted. */
export async function releaseCustomDrugPlaces(db: Kysely<Database>, organizationId: string, removed: number): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ custom_drugs_held: eb('custom_drugs_held', '-', removed) }))
    .where('id', '=', organizationId)
    .execute();
}

/** Live drugs of the organization, its catalog and every user's own together, as counted beside it. */
export async function countLiveDrugsOfOrganization(db: Kysely<Database>, organizationId: string): Promise<number> {
  const row = await db.selectFrom('organizations').select('custom_drugs_held').where('id', '=', organizationId).executeTakeFirst();
  return row?.custom_drugs_held ?? 0;
}

export async function findCustomDrugs(db: Kysely<Database>, owner: DrugOwner, customProductId?: string): Promise<CustomDrugRow[]> {
  let query = db.selectFrom('custom_drugs').selectAll().where(liveDrugOf(owner));
  if (customProductId !== undefined) query = query.where('custom_product_id', '=', customProductId);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** The organization catalog and the user's own drugs, in one list. */
export async function findCustomDrugsVisibleToUser(db: Kysely<Database>, organizationId: string, userId: string): Promise<CustomDrugRow[]> {
  return db
    .selectFrom('custom_drugs')
    .selectAll()
    .where((eb) => eb.or([liveDrugOf({ organizationId, userId: null })(eb), liveDrugOf({ organizationId, userId })(eb)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** `text` as a LIKE pattern matching it anywhere, its own % _ and \ taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Word starts a search matches by: the text's start, or a space, slash, hyphen, parenthesis or comma before it. */
const WORD_BREAKS = ['/', '-', '(', ','];

/** Most words of a search matched one by one (the medicines search's bound too). */
const SEARCH_WORDS_MATCHED = 6;

/**
 * At most `limit` drugs of the organization catalog (first) and the user's own whose name,
 * strength, form, trade or brand name contain `search`, or have for every word of it a word
 * starting with it ("amox 500" finds "Amoxicillin 500mg"), in any case (empty: every drug):
 * the database finds them, so a list of any size costs one bounded query.
 */
export async function searchCustomDrugsVisibleToUser(
  db: Kysely<Database>,
  visibleTo: { organizationId: string; userId: string },
  search: string,
  limit: number,
): Promise<CustomDrugRow[]> {
  let query = db
    .selectFrom('custom_drugs')
    .selectAll()
    .where((eb) => eb.or([liveDrugOf({ ...visibleTo, userId: null })(eb), liveDrugOf(visibleTo)(eb)]));
  if (search !== '') {
    const described = sql<string>`lower(item_generic_name || ' ' || coalesce(item_strength, '') || ' ' || coalesce(item_form, '') || ' ' || coalesce(item_trade_name, '') || ' ' || coalesce(brand_name, ''))`;
    let spaced = sql<string>`' ' || ${described}`;
    for (const mark of WORD_BREAKS) spaced = sql<string>`replace(${spaced}, ${mark}, ' ')`;
    const words = search.split(/\s+/).filter((word) => word !== '').slice(0, SEARCH_WORDS_MATCHED);
    query = query.where((eb) =>
      eb.or([
        sql<boolean>`${described} like ${containing(search)} escape '\\'`,
        eb.and(words.map((word) => sql<boolean>`${spaced} like ${`% ${containing(word).slice(1)}`} escape '\\'`)),
      ]),
    );
  }
  return query
    .orderBy(sql`case when user_id is null then 0 else 1 end`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The live drug with this id in the organization catalog or among the user's own drugs. */
export async function findLiveDrugVisibleToUser(db: Kysely<Database>, organizationId: string, userId: string, id: string): Promise<CustomDrugRow | undefined> {
  return db
    .selectFrom('custom_drugs')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => eb.or([liveDrugOf({ organizationId, userId: null })(eb), liveDrugOf({ organizationId, userId })(eb)]))
    .executeTakeFirst();
}

/** Whether the owner has a live drug with this id. */
export async function isLiveDrug(db: Kysely<Database>, owner: DrugOwner, id: string): Promise<boolean> {
  const row = await db.selectFrom('custom_drugs').select('id').where('id', '=', id).where(liveDrugOf(owner)).executeTakeFirst();
  return row !== undefined;
}

/** What a partner sees of a drug: its id and fields, none of the audit columns. */
export type CustomDrugView = Pick<CustomDrugRow, 'id' | CustomDrugField>;

/** The columns of a CustomDrugView. */
const VIEW_COLUMNS = ['id', ...CUSTOM_DRUG_FIELD_NAMES] as const;

/** Most column sets whose UPDATE stays compiled; a patch names a few of ~20 fields, so few occur. */
const COMPILED_UPDATES_LIMIT = 256;

type UpdateParams = Record<string, unknown>;
const liveDrugUpdates = new Map<string, PrecompiledQuery<UpdateParams, CustomDrugView>>();

function compileLiveDrugUpdate(userLevel: boolean, columns: string[]): PrecompiledQuery<UpdateParams, CustomDrugView> {
  return precompileQuery<UpdateParams, CustomDrugView>((db, param) =>
    db
      .updateTable('custom_drugs')
      .set(Object.fromEntries(columns.map((column) => [column, param(`set.${column}`)])))
      .where('id', '=', param('id'))
      .where((eb) => liveDrugOf({ organizationId: param('organizationId'), userId: userLevel ? param('userId') : null })(eb))
      // Not RETURNING *: SQLite's RETURNING costs per column, and the audit columns (8 of 22)
      // took about 5 µs of the 13 µs an edit spent here.
      .returning(VIEW_COLUMNS),
  );
}

/**
 * Updates the owner's live drug and returns it, or undefined when it is not the owner's. Every
 * drug edit runs this, so the UPDATE is compiled once per owner level and set of columns.
 */
export async function updateLiveDrug(
  db: Kysely<Database>,
  owner: DrugOwner,
  id: string,
  changes: Updateable<CustomDrugsTable>,
): Promise<CustomDrugView | undefined> {
  const columns = Object.keys(changes);
  const key = `${owner.userId === null ? 'organization' : 'user'}:${columns.join(',')}`;
  let update = liveDrugUpdates.get(key);
  if (!update) {
    update = compileLiveDrugUpdate(owner.userId !== null, columns);
    if (liveDrugUpdates.size < COMPILED_UPDATES_LIMIT) liveDrugUpdates.set(key, update);
  }
  const values: UpdateParams = { id, organizationId: owner.organizationId, userId: owner.userId };
  for (const column of columns) values[`set.${column}`] = changes[column as keyof typeof changes];
  return (await update(db, values))[0];
}

/** Marks the owner's live drugs deleted (one when `id` is given); returns how many. */
export async function markCustomDrugsDeleted(
  db: Kysely<Database>,
  owner: DrugOwner,
  stamp: { deleted_at: string; deleted_by: string },
  id?: string,
): Promise<number> {
  let query = db.updateTable('custom_drugs').set(stamp).where(liveDrugOf(owner));
  if (id !== undefined) query = query.where('id', '=', id);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
