// Queries of the medicines catalogue: the PBS items of the current schedule, their search words
// and the schedules imported. A search is one query: each word of it is a range of the word
// index (its prefix), the items must match every word, and only a page of them is read.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database, PbsItemsTable } from '../platform/db/database-schema.ts';

export type PbsItemRow = Selectable<PbsItemsTable>;
export type PbsScheduleRow = Selectable<Database['pbs_schedules']>;

/** Rows per INSERT: 500 x 13 columns stays far below both dialects' parameter limits. */
const INSERT_CHUNK_ROWS = 500;

export async function findPbsItemByCode(db: Kysely<Database>, pbsCode: string): Promise<PbsItemRow | undefined> {
  return db.selectFrom('pbs_items').selectAll().where('pbs_code', '=', pbsCode).executeTakeFirst();
}

export async function findCurrentPbsSchedule(db: Kysely<Database>): Promise<PbsScheduleRow | undefined> {
  return db.selectFrom('pbs_schedules').selectAll().where('current', '=', 1).executeTakeFirst();
}

/** The upper end of the range of words starting with `prefix` (words are lower-case ASCII). */
const afterPrefix = (prefix: string) => `${prefix}\u{ffff}`;

/**
 * At most `limit` items having, for each of `prefixes`, a word that starts with it, in drug
 * name order (no prefix: the first items). Prefixes are lower-case letters and digits (the
 * words were cut the same way).
 */
export async function searchPbsItemsByWordPrefixes(db: Kysely<Database>, prefixes: string[], limit: number): Promise<PbsItemRow[]> {
  let query = db.selectFrom('pbs_items').selectAll();
  for (const prefix of prefixes) {
    query = query.where('pbs_code', 'in', (eb) =>
      eb.selectFrom('pbs_item_words').select('pbs_code').where('word', '>=', prefix).where('word', '<', afterPrefix(prefix)),
    );
  }
  return query.orderBy('drug_name').orderBy('pbs_code').limit(limit).execute();
}

/** Replaces every item and word of the catalogue (inside the caller's transaction). */
export async function replacePbsItems(db: Kysely<Database>, items: Insertable<PbsItemsTable>[], words: Array<{ word: string; pbs_code: string }>): Promise<void> {
  await db.deleteFrom('pbs_item_words').execute();
  await db.deleteFrom('pbs_items').execute();
  for (let start = 0; start < items.length; start += INSERT_CHUNK_ROWS) {
    await db.insertInto('pbs_items').values(items.slice(start, start + INSERT_CHUNK_ROWS)).execute();
  }
  for (let start = 0; start < words.length; start += INSERT_CHUNK_ROWS * 4) {
    await db.insertInto('pbs_item_words').values(words.slice(start, start + INSERT_CHUNK_ROWS * 4)).execute();
  }
}

/** Marks `schedule` the current one (recording it, or its new import, when already known). */
export async function recordCurrentPbsSchedule(db: Kysely<Database>, schedule: Omit<PbsScheduleRow, 'current'>): Promise<void> {
  await db.updateTable('pbs_schedules').set({ current: 0 }).where('current', '=', 1).execute();
  await db
    .insertInto('pbs_schedules')
    .values({ ...schedule, current: 1 })
    .onConflict((oc) => oc.column('schedule_code').doUpdateSet({ effective_date: schedule.effective_date, digest: schedule.digest, item_count: schedule.item_count, imported_at: schedule.imported_at, current: 1 }))
    .execute();
}

/** How many items the current catalogue holds. */
export async function countPbsItems(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('pbs_items').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
