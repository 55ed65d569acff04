// Rows built from better-sqlite3's raw arrays must be exactly the objects better-sqlite3
// itself would have built, whatever the columns are called and however the table changes.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { closeGroupCommitDatabases, givenGroupCommitDatabase } from './sqlite-group-commit-given.ts';

afterEach(closeGroupCommitDatabases);

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const SqliteDatabase: typeof BetterSqlite3 = createRequire(import.meta.url)(NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');

async function rowsOf(db: Kysely<any>, text: string): Promise<unknown[]> {
  return (await sql.raw(text).execute(db)).rows;
}

/** What better-sqlite3 answers on a connection of its own. */
function plainRowsOf(file: string, text: string): unknown[] {
  const plain = new SqliteDatabase(file, { readonly: true });
  try {
    return plain.prepare(text).all();
  } finally {
    plain.close();
  }
}

describe('rows of the SQLite driver', () => {
  it("equal better-sqlite3's own objects: key order, nulls, numbers, blobs, odd and repeated column names", async () => {
    const { db, file } = await givenGroupCommitDatabase();
    await sql`insert into items (id, note) values (1, 'one'), (2, null)`.execute(db);
    const queries = [
      'select * from items order by id',
      `select id as "a b", note as "quote""d", id * 1.5 as "x", x'00ff' as blob, note as "constructor" from items order by id`,
      'select id, note as id from items order by id', // the later column wins
      'select id, id from items order by id',
    ];
    for (const text of queries) {
      const rows = await rowsOf(db, text);
      expect(rows).toEqual(plainRowsOf(file, text));
      expect(rows.map((row) => Object.keys(row as object))).toEqual(plainRowsOf(file, text).map((row) => Object.keys(row as object)));
    }
  });

  it('leaves a row with a column named __proto__ to better-sqlite3 itself', async () => {
    const { db, file } = await givenGroupCommitDatabase();
    await sql`insert into items (id, note) values (1, 'one')`.execute(db);
    const text = 'select id, note as "__proto__" from items';
    const [row] = (await rowsOf(db, text)) as object[];
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(row)).toEqual(Object.getOwnPropertyNames(plainRowsOf(file, text)[0]));
  });

  it('follows a table another process changed under a prepared query', async () => {
    const { db, openSecondConnection } = await givenGroupCommitDatabase();
    await sql`insert into items (id, note) values (1, 'one')`.execute(db);
    expect(await rowsOf(db, 'select * from items')).toEqual([{ id: 1, note: 'one' }]);
    const second = await openSecondConnection();
    await sql`alter table items add column size integer`.execute(second);
    await sql`update items set size = 7`.execute(second);
    expect(await rowsOf(db, 'select * from items')).toEqual([{ id: 1, note: 'one', size: 7 }]);
    await sql`alter table items drop column note`.execute(second);
    expect(await rowsOf(db, 'select * from items')).toEqual([{ id: 1, size: 7 }]);
  });

  it('builds streamed rows the same way', async () => {
    const { db } = await givenGroupCommitDatabase();
    await sql`insert into items (id, note) values (1, 'one'), (2, 'two')`.execute(db);
    const streamed: unknown[] = [];
    for await (const row of db.selectFrom('items').select(['note', 'id']).orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual([{ note: 'one', id: 1 }, { note: 'two', id: 2 }]);
    expect(streamed.map((row) => Object.keys(row as object))).toEqual([['note', 'id'], ['note', 'id']]);
  });
});
