// Precompiled and cached queries on SQLite's group-commit driver: reads that skip Kysely's
// connection machinery, and cached results that last exactly until a write may change them.
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { precompileCachedQuery, precompileQuery } from '../../src/platform/db/precompiled-query.ts';
import { closeGroupCommitDatabases, count, givenGroupCommitDatabase, insertItem, itemIds } from './sqlite-group-commit-given.ts';
import { tableWrittenBy } from '../../src/platform/db/sqlite/sqlite-change-stamps.ts';

afterEach(closeGroupCommitDatabases);

const SELECT_NOTE = 'select "note" from "items" where "id" = ?';

// Written once, run with whichever database or transaction is at hand.
const cachedNote = precompileCachedQuery<{ id: number }, { note: string }, any>({ invalidatedBy: ['items'] }, (db, param) =>
  db.selectFrom('items').select('note').where('id', '=', param('id')),
);
const renameAndReturnNote = precompileQuery<{ id: number; note: string }, { note: string }, any>((db, param) =>
  db.updateTable('items').set({ note: param('note') }).where('id', '=', param('id')).returning('note'),
);
const plainNote = precompileQuery<{ id: number }, { note: string }, any>((db, param) => db.selectFrom('items').select('note').where('id', '=', param('id')));

/** The query as run on `db`. */
function on<P, R>(query: (db: Kysely<any>, values: P) => R, db: Kysely<any>): (values: P) => R {
  return (values) => query(db, values);
}

function noteQuery(db: Kysely<any>) {
  return on(cachedNote, db);
}

async function turnsOfTheEventLoop(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Until a millisecond has passed on the monotonic clock the change stamps read (not a fixed sleep: no longer). */
async function millisecondPassed(): Promise<void> {
  const from = performance.now();
  while (performance.now() - from < 1) await turnsOfTheEventLoop(1);
}

async function givenItemsAndOthers(options: { inMemory?: true } = {}) {
  const given = await givenGroupCommitDatabase(options);
  await sql`create table others (id integer primary key)`.execute(given.db);
  await insertItem(given.db, 1);
  given.log.length = 0;
  return given;
}

describe('precompileQuery on SQLite', () => {
  it('reads committed data on the reader connection at once, even while a group holds the writer', async () => {
    const { db, log } = await givenItemsAndOthers();
    const note = on(plainNote, db);
    let midGroup: unknown;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('items').set({ note: 'changed' }).where('id', '=', 1).execute();
      midGroup = await note({ id: 1 });
    });
    expect(midGroup).toEqual([{ note: 'item 1' }]);
    expect(await note({ id: 1 })).toEqual([{ note: 'changed' }]);
    expect(count(log, SELECT_NOTE)).toBe(2);
  });

  it('inside a transaction reads through the transaction, and sees its own writes', async () => {
    const { db } = await givenItemsAndOthers();
    const seen = await db.transaction().execute(async (trx) => {
      await trx.updateTable('items').set({ note: 'mine' }).where('id', '=', 1).execute();
      return plainNote(trx, { id: 1 });
    });
    expect(seen).toEqual([{ note: 'mine' }]);
  });

  it('is written once and runs on the database and inside a transaction alike, writes included', async () => {
    const { db } = await givenItemsAndOthers();
    const inside = await db.transaction().execute(async (trx) => {
      expect(await renameAndReturnNote(trx, { id: 1, note: 'in a transaction' })).toEqual([{ note: 'in a transaction' }]);
      return plainNote(trx, { id: 1 });
    });
    expect(inside).toEqual([{ note: 'in a transaction' }]);
    expect(await renameAndReturnNote(db, { id: 1, note: 'outside' })).toEqual([{ note: 'outside' }]);
    expect(await plainNote(db, { id: 1 })).toEqual([{ note: 'outside' }]);
  });

  it('runs a precompiled write with the values given, and its change stamps name the one table it wrote', async () => {
    const { db, log } = await givenItemsAndOthers();
    await db.insertInto('others').values({ id: 1 }).execute();
    const note = noteQuery(db);
    const renumber = on(
      precompileQuery<{ from: number; to: number }, { id: number }, any>((db, param) =>
        db.updateTable('others').set({ id: param('to') }).where('id', '=', param('from')).returning('id'),
      ),
      db,
    );
    await note({ id: 1 });
    expect(await renumber({ from: 1, to: 5 })).toEqual([{ id: 5 }]);
    expect(await db.selectFrom('others').select('id').execute()).toEqual([{ id: 5 }]);
    await note({ id: 1 });
    expect(count(log, SELECT_NOTE)).toBe(1); // a write to others only: items stays cached

    const rename = on(
      precompileQuery<{ id: number; note: string }, never, any>((db, param) => db.updateTable('items').set({ note: param('note') }).where('id', '=', param('id'))),
      db,
    );
    await rename({ id: 1, note: 'renamed' });
    expect(await note({ id: 1 })).toEqual([{ note: 'renamed' }]);
    expect(count(log, SELECT_NOTE)).toBe(2);
  });
});

describe('precompileQuery writes on SQLite', () => {
  const RENAME = 'update "items" set "note" = ? where "id" = ? returning "note"';

  const renameAndReturn = precompileQuery<{ id: number; note: string }, { note: string }, any>((db, param) =>
    db.updateTable('items').set({ note: param('note') }).where('id', '=', param('id')).returning('note'),
  );

  function renameQuery(db: Kysely<any>) {
    return on(renameAndReturn, db);
  }

  it('runs a write at once in the open group, without a turn of Kysely, and settles it only after the COMMIT', async () => {
    const { db, log } = await givenItemsAndOthers();
    const rename = renameQuery(db);
    const first = rename({ id: 1, note: 'first' });
    expect(log).toEqual(['begin immediate', RENAME]); // ran before this line, not after a turn of the microtask queue
    const settled = [first, insertItem(db, 2), rename({ id: 1, note: 'second' })].map((write, i) =>
      Promise.resolve(write).then(() => log.push(`settled ${i}`)),
    );
    await Promise.all(settled);
    expect(await first).toEqual([{ note: 'first' }]);
    expect(count(log, 'begin immediate')).toBe(1);
    expect(count(log, 'commit')).toBe(1);
    expect(Math.min(...[0, 1, 2].map((i) => log.indexOf(`settled ${i}`)))).toBeGreaterThan(log.indexOf('commit'));
    expect(await db.selectFrom('items').select('note').where('id', '=', 1).execute()).toEqual([{ note: 'second' }]);
  });

  it('waits its turn behind a transaction that holds the writer, and is not undone with it', async () => {
    const { db, log, nextStatement } = await givenItemsAndOthers();
    const rename = renameQuery(db);
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const updated = nextStatement('update "items" set "note" = ? where "id" = ?');
    const transaction = db.transaction().execute(async (trx) => {
      await trx.updateTable('items').set({ note: 'in the transaction' }).where('id', '=', 1).execute();
      await gate;
      throw new Error('undo the transaction');
    });
    await updated;
    const write = rename({ id: 1, note: 'after it' });
    // better-sqlite3 runs a statement synchronously: a write not made to wait is in the log within a turn.
    await turnsOfTheEventLoop(5);
    expect(count(log, RENAME)).toBe(0);
    letGo();
    await expect(transaction).rejects.toThrow('undo the transaction');
    expect(await write).toEqual([{ note: 'after it' }]);
    expect(await db.selectFrom('items').select('note').where('id', '=', 1).execute()).toEqual([{ note: 'after it' }]);
  });

  it('rejects a failing write with its own error once the group has committed; its neighbours keep their rows', async () => {
    const { db, log } = await givenItemsAndOthers();
    const insert = on(precompileQuery<{ id: number }, never, any>((db, param) => db.insertInto('items').values({ id: param('id'), note: 'new' })), db);
    const results = await Promise.allSettled([insert({ id: 2 }), insert({ id: 1 }), insert({ id: 3 })]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(count(log, 'commit')).toBe(1);
    expect(await itemIds(db)).toEqual([1, 2, 3]);
  });
});

describe('precompileCachedQuery on SQLite', () => {
  for (const inMemory of [false, true]) {
    const where = inMemory ? 'without a reader connection (:memory:)' : 'on a file';
    it(`answers a repeat from the cache until a write to a table it reads ends, ${where}`, async () => {
      const { db, log } = await givenItemsAndOthers(inMemory ? { inMemory } : {});
      const note = noteQuery(db);
      expect(await note({ id: 1 })).toEqual([{ note: 'item 1' }]);
      expect(await note({ id: 1 })).toEqual([{ note: 'item 1' }]);
      expect(count(log, SELECT_NOTE)).toBe(1);

      await db.insertInto('others').values({ id: 1 }).execute();
      expect(await note({ id: 1 })).toEqual([{ note: 'item 1' }]);
      expect(count(log, SELECT_NOTE)).toBe(1); // another table: still cached

      await db.updateTable('items').set({ note: 'updated' }).where('id', '=', 1).execute();
      expect(await note({ id: 1 })).toEqual([{ note: 'updated' }]);
      expect(count(log, SELECT_NOTE)).toBe(2);
    });
  }

  it('keeps one result per parameter value, absent rows too, and freezes what it shares', async () => {
    const { db, log } = await givenItemsAndOthers();
    const note = noteQuery(db);
    expect(await note({ id: 2 })).toEqual([]);
    const first = await note({ id: 1 });
    expect(await note({ id: 2 })).toEqual([]);
    expect(await note({ id: 1 })).toBe(first);
    expect(count(log, SELECT_NOTE)).toBe(2);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0])).toBe(true);

    await insertItem(db, 2);
    expect(await note({ id: 2 })).toEqual([{ note: 'item 2' }]);
  });

  it('forgets its results when a transaction that wrote the table rolls back, and after writes it cannot name', async () => {
    const { db, log } = await givenItemsAndOthers();
    const note = noteQuery(db);
    await note({ id: 1 });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('items').set({ note: 'undone' }).where('id', '=', 1).execute();
        throw new Error('give up');
      }),
    ).rejects.toThrow('give up');
    expect(await note({ id: 1 })).toEqual([{ note: 'item 1' }]);
    expect(count(log, SELECT_NOTE)).toBe(2);

    await sql`update items set note = 'raw' where id = 1`.execute(db);
    expect(await note({ id: 1 })).toEqual([{ note: 'raw' }]);
    await db.deleteFrom('others').execute();
    await note({ id: 1 });
    expect(count(log, SELECT_NOTE)).toBe(4); // a raw write and a delete each count as writing every table
  });

  it("notices another connection's commit (another process, the CLI) within a millisecond", async () => {
    const { db, log, openSecondConnection } = await givenItemsAndOthers();
    const second = await openSecondConnection();
    const note = noteQuery(db);
    await note({ id: 1 });
    await second.updateTable('items').set({ note: 'from elsewhere' }).where('id', '=', 1).execute();
    await millisecondPassed();
    expect(await note({ id: 1 })).toEqual([{ note: 'from elsewhere' }]);
    expect(count(log, SELECT_NOTE)).toBe(2);
  });

  it('caches nothing for a transaction: it reads through its own connection each time', async () => {
    const { db, log } = await givenItemsAndOthers();
    await db.transaction().execute(async (trx) => {
      const note = noteQuery(trx);
      await note({ id: 1 });
      await note({ id: 1 });
    });
    expect(count(log, SELECT_NOTE)).toBe(2);
  });
});

describe('tableWrittenBy', () => {
  it('names the table of an insert or update, aliased or not, and nothing for what it cannot vouch for', async () => {
    const { db } = await givenItemsAndOthers();
    const node = (query: { compile(): { query: any } } | { query: any }) => tableWrittenBy('compile' in query ? query.compile().query : query.query);
    expect(node(db.insertInto('items').values({ id: 5 }))).toBe('items');
    expect(node(db.updateTable('items').set({ note: 'x' }))).toBe('items');
    expect(node(db.updateTable('items as i').set({ note: 'x' }))).toBe('items');
    expect(node(db.withSchema('main').updateTable('items').set({ note: 'x' }))).toBeUndefined();
    expect(node(db.deleteFrom('items'))).toBeUndefined();
    expect(node(sql`update items set note = 'x'`.compile(db))).toBeUndefined();
  });
});
