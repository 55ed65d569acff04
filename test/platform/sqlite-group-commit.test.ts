// Group commit: how units share a COMMIT, and what happens when one of them, or the COMMIT, fails.
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { closeGroupCommitDatabases, count, givenGroupCommitDatabase, insertItem, itemIds, range } from './sqlite-group-commit-given.ts';

afterEach(closeGroupCommitDatabases);

describe('SQLite group commit', () => {
  it('commits concurrent transactions with one COMMIT, each in its own savepoint, and keeps all their rows', async () => {
    const { db, log, openSecondConnection } = await givenGroupCommitDatabase();
    await Promise.all(range(20).map((id) => db.transaction().execute((trx) => insertItem(trx, id))));
    expect(count(log, 'begin immediate')).toBe(1);
    expect(count(log, 'savepoint erx_group_unit')).toBe(20);
    expect(count(log, 'commit')).toBe(1);
    expect(await itemIds(await openSecondConnection())).toEqual(range(20));
  });

  it('caps a group at maxUnits units, so the first one does not wait for an unbounded queue', async () => {
    const { db, log } = await givenGroupCommitDatabase({ maxUnits: 64 });
    await Promise.all(range(100).map((id) => db.transaction().execute((trx) => insertItem(trx, id))));
    const groups = log.join('\n').split('\ncommit').map((group) => count(group.split('\n'), 'savepoint erx_group_unit'));
    expect(groups).toEqual([64, 36, 0]);
    expect(await itemIds(db)).toEqual(range(100));
  });

  it('keeps an idle group open for stragglers: a write a few turns of the event loop later, within quietMs, shares its COMMIT', async () => {
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const twoWritesApart = async (quietMs: number) => {
      const { db, log } = await givenGroupCommitDatabase({ quietMs });
      const first = insertItem(db, 1);
      await turns(3);
      await Promise.all([first, insertItem(db, 2)]);
      expect(await itemIds(db)).toEqual([1, 2]);
      return count(log, 'commit');
    };
    expect(await twoWritesApart(300)).toBe(1);
    expect(await twoWritesApart(0)).toBe(2);
  });

  it('commits at once, without the quiet time, a group as large as the largest of the last 8', async () => {
    // A quiet time far above what a loaded machine adds to a group's own work (a 40 ms quiet
    // time with a 30 ms bound failed at 32 ms under a load of 15).
    const { db, log } = await givenGroupCommitDatabase({ quietMs: 300 });
    const groupOf = async (ids: number[]) => {
      const startedAt = performance.now();
      await Promise.all(ids.map((id) => insertItem(db, id)));
      return performance.now() - startedAt;
    };
    // Creating the items table was the first commit (one unit); seven groups of three make eight.
    for (let group = 0; group < 7; group++) expect(await groupOf(range(3, 10 * group + 1))).toBeGreaterThanOrEqual(300);
    expect(await groupOf(range(3, 101))).toBeLessThan(150);
    expect(await groupOf(range(2, 111))).toBeGreaterThanOrEqual(300); // smaller: it waits for stragglers
    expect(count(log, 'commit')).toBe(9);
  });

  it('runs the transactions of a group one after another: concurrent read-modify-write loses no update', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    await insertItem(db, 1);
    await Promise.all(
      range(25).map(() =>
        db.transaction().execute(async (trx) => {
          const { note } = await trx.selectFrom('items').select('note').where('id', '=', 1).executeTakeFirstOrThrow();
          await trx.updateTable('items').set({ note: `${note}+` }).where('id', '=', 1).execute();
        }),
      ),
    );
    expect(count(log, 'commit')).toBe(2); // the insert's group, then the 25 updates'
    expect((await db.selectFrom('items').select('note').executeTakeFirstOrThrow()).note).toBe(`item 1${'+'.repeat(25)}`);
  });

  it('rolls back a transaction that throws mid-group, rejects it with its own error, and commits its neighbours', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    const boom = new Error('boom');
    const results = await Promise.allSettled(
      range(5).map((id) =>
        db.transaction().execute(async (trx) => {
          await insertItem(trx, id);
          if (id === 3) throw boom;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toBe(boom);
    expect(count(log, 'rollback to erx_group_unit')).toBe(1);
    expect(count(log, 'commit')).toBe(1);
    expect(await itemIds(db)).toEqual([1, 2, 4, 5]);
  });

  it('settles no transaction of a group before its COMMIT has run', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    await Promise.allSettled(
      range(4).map((id) =>
        db
          .transaction()
          .execute(async (trx) => {
            await insertItem(trx, id);
            if (id === 2) throw new Error('fails');
          })
          .then(
            () => log.push(`resolved ${id}`),
            () => log.push(`rejected ${id}`),
          ),
      ),
    );
    const commitAt = log.indexOf('commit');
    const settledAt = log.flatMap((line, i) => (/^(resolved|rejected) /.test(line) ? [i] : []));
    expect(commitAt).toBeGreaterThan(-1);
    expect(settledAt).toHaveLength(4);
    expect(Math.min(...settledAt)).toBeGreaterThan(commitAt);
  });

  it('rejects every member of a group whose COMMIT fails, keeps none of their rows, and carries on', async () => {
    const { db, log, failNext } = await givenGroupCommitDatabase();
    const diskFull = new Error('disk full');
    failNext('commit', diskFull);
    const results = await Promise.allSettled(range(3).map((id) => db.transaction().execute((trx) => insertItem(trx, id))));
    expect(results).toEqual(range(3).map(() => ({ status: 'rejected', reason: diskFull })));
    expect(log).toContain('rollback');
    expect(await itemIds(db)).toEqual([]);
    await db.transaction().execute((trx) => insertItem(trx, 9));
    expect(await itemIds(db)).toEqual([9]);
  });

  it('rejects the whole group when SQLite refuses its COMMIT (a deferred foreign key), then carries on', async () => {
    const { db } = await givenGroupCommitDatabase();
    await sql`create table parents (id integer primary key)`.execute(db);
    await sql`create table children (id integer primary key, parent_id integer references parents (id) deferrable initially deferred)`.execute(db);
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insertItem(trx, 1)),
      db.transaction().execute((trx) => trx.insertInto('children').values({ id: 1, parent_id: 404 }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY constraint failed/);
    expect(await itemIds(db)).toEqual([]);
    await db.transaction().execute((trx) => insertItem(trx, 2));
    expect(await itemIds(db)).toEqual([2]);
  });

  it('when SQLite itself rolls the open group back, rejects every unit in it and autocommits nothing afterwards', async () => {
    const { db } = await givenGroupCommitDatabase();
    await sql`create table tripwire (id integer primary key)`.execute(db);
    await sql`create trigger tripwire_aborts before insert on tripwire begin select raise(rollback, 'tripped'); end`.execute(db);
    const [first, tripper, next] = await Promise.allSettled([
      db.transaction().execute((trx) => insertItem(trx, 1)),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('tripwire').values({ id: 1 }).execute().catch(() => undefined);
        await insertItem(trx, 2); // must not run outside a transaction now that SQLite ended it
      }),
      db.transaction().execute((trx) => insertItem(trx, 3)),
    ]);
    expect(first).toMatchObject({ status: 'rejected', reason: { message: 'tripped' } });
    expect(tripper).toMatchObject({ status: 'rejected', reason: { message: 'tripped' } });
    expect(next).toMatchObject({ status: 'fulfilled' });
    expect(await itemIds(db)).toEqual([3]);
  });

  it('undoes a transaction whose RELEASE fails and rejects it alone', async () => {
    const { db, failNext } = await givenGroupCommitDatabase();
    const releaseFailed = new Error('release failed');
    const [first, second] = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await insertItem(trx, 1);
        failNext('release erx_group_unit', releaseFailed);
      }),
      db.transaction().execute((trx) => insertItem(trx, 2)),
    ]);
    expect(first).toEqual({ status: 'rejected', reason: releaseFailed });
    expect(second).toMatchObject({ status: 'fulfilled' });
    expect(await itemIds(db)).toEqual([2]);
  });

  it('rolls the whole group back, rather than commit a failed unit, when the unit cannot be undone', async () => {
    const { db, failNext } = await givenGroupCommitDatabase();
    const undoFailed = new Error('rollback to failed');
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insertItem(trx, 1)),
      db.transaction().execute(async (trx) => {
        await insertItem(trx, 2);
        failNext('rollback to erx_group_unit', undoFailed);
        throw new Error('fails');
      }),
    ]);
    expect(results[0]).toEqual({ status: 'rejected', reason: undoFailed });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: 'fails' } });
    expect(await itemIds(db)).toEqual([]);
  });

  it('lets autocommit writes join the group; a failing one rejects alone with its own error', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    const results = await Promise.allSettled([1, 2, 2, 3].map((id) => insertItem(db, id)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(count(log, 'commit')).toBe(1);
    expect(await itemIds(db)).toEqual([1, 2, 3]);
  });

  // A two-row insert whose second row is taken by a neighbour in the same group: none of its
  // rows may stay, whether SQLite undoes the statement (no savepoint) or the savepoint does (OR FAIL).
  const partlyFailingWrites = [
    { name: 'runs a plain autocommit write without a savepoint: SQLite itself undoes all of a statement that fails part-way', orFail: false, savepoints: 0 },
    { name: 'keeps the savepoint for OR FAIL, which would keep the rows a failed statement wrote before failing', orFail: true, savepoints: 1 },
  ];
  for (const { name, orFail, savepoints } of partlyFailingWrites) {
    it(name, async () => {
      const { db, log } = await givenGroupCommitDatabase();
      const insert = orFail ? db.insertInto('items').orFail() : db.insertInto('items');
      const twoRows = insert.values([{ id: 10, note: 'first row' }, { id: 1, note: 'taken' }]);
      const results = await Promise.allSettled([insertItem(db, 1), twoRows.execute(), insertItem(db, 3)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(count(log, 'savepoint erx_group_unit')).toBe(savepoints);
      expect(count(log, 'rollback to erx_group_unit')).toBe(savepoints);
      expect(count(log, 'commit')).toBe(1);
      expect(await itemIds(db)).toEqual([1, 3]);
    });
  }

  it('keeps the savepoint for raw SQL writes, which it does not read', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    await sql`insert into items (id, note) values (7, 'raw')`.execute(db);
    expect(count(log, 'savepoint erx_group_unit')).toBe(1);
    expect(await itemIds(db)).toEqual([7]);
  });
});
