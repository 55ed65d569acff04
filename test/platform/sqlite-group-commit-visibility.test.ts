// Group commit seen from outside a group: other connections, reads, streams, db.connection(),
// closing, and Kysely's controlled transactions with their savepoints.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { closeGroupCommitDatabases, count, givenGroupCommitDatabase, insertItem, itemIds } from './sqlite-group-commit-given.ts';

afterEach(closeGroupCommitDatabases);

/** The item ids as a separate Node process on the same file sees them (another `erx` command, say). */
async function itemIdsSeenByAnotherProcess(file: string): Promise<number[]> {
  const script = `const Database = require(Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
const db = new Database(process.argv[1], { readonly: true });
process.stdout.write(JSON.stringify(db.prepare('select id from items order by id').pluck().all()));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, file]);
  return JSON.parse(stdout) as number[];
}

describe('SQLite group commit, seen from outside the group', () => {
  it('never shows a group to another connection or process before its COMMIT', async () => {
    const { db, file, openSecondConnection } = await givenGroupCommitDatabase();
    const second = await openSecondConnection();
    const seenMidGroup: Record<string, number[]> = {};
    await Promise.all([
      db.transaction().execute((trx) => insertItem(trx, 1)),
      db.transaction().execute(async (trx) => {
        // Transaction 1 has ended, and its group stays open while this one runs.
        seenMidGroup.connection = await itemIds(second);
        seenMidGroup.process = await itemIdsSeenByAnotherProcess(file);
        await insertItem(trx, 2);
      }),
    ]);
    expect(seenMidGroup).toEqual({ connection: [], process: [] });
    expect(await itemIds(second)).toEqual([1, 2]);
    expect(await itemIdsSeenByAnotherProcess(file)).toEqual([1, 2]);
  });

  it('answers a read outside a transaction from the reader connection: committed data only, without waiting for the group', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    let seenMidGroup: number[] | undefined;
    let streamedMidGroup: number[] | undefined;
    await Promise.all([
      db.transaction().execute((trx) => insertItem(trx, 1)),
      db.transaction().execute(async (trx) => {
        // This transaction holds the writer; a read that needed it would wait for ever.
        seenMidGroup = await itemIds(db);
        streamedMidGroup = [];
        for await (const row of db.selectFrom('items').select('id').stream()) streamedMidGroup.push(row.id);
        await insertItem(trx, 2);
      }),
    ]);
    expect(seenMidGroup).toEqual([]);
    expect(streamedMidGroup).toEqual([]);
    expect(await itemIds(db)).toEqual([1, 2]);
    expect(count(log, 'commit')).toBe(1);
  });

  it('without a reader connection, delivers a read made while a group is open only after its COMMIT', async () => {
    const { db, log } = await givenGroupCommitDatabase({ inMemory: true });
    expect(await itemIds(db)).toEqual([]);
    expect(log).not.toContain('begin immediate'); // a read outside any group runs directly
    const [, read] = await Promise.all([
      db.transaction().execute((trx) => insertItem(trx, 1)),
      itemIds(db).then((ids) => (log.push('read delivered'), ids)),
    ]);
    expect(read).toEqual([1]);
    expect(log.indexOf('read delivered')).toBeGreaterThan(log.indexOf('commit'));
  });

  it('without a reader connection, commits the open group before a stream hands out its first row', async () => {
    const { db, log } = await givenGroupCommitDatabase({ inMemory: true });
    const write = db.transaction().execute((trx) => insertItem(trx, 1));
    const streamed: number[] = [];
    for await (const row of db.selectFrom('items').select('id').stream()) {
      log.push('row');
      streamed.push(row.id);
    }
    await write;
    expect(streamed).toEqual([1]);
    expect(log.indexOf('commit')).toBeLessThan(log.indexOf('row'));
  });

  it('keeps db.connection() to itself across statements and settles it after the COMMIT', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    const [ids] = await Promise.all([
      db.connection().execute(async (conn) => {
        await insertItem(conn, 1);
        await insertItem(conn, 2);
        return itemIds(conn);
      }),
      insertItem(db, 3),
    ]);
    log.push('connection settled');
    expect(ids).toEqual([1, 2]);
    expect(log.indexOf('connection settled')).toBeGreaterThan(log.indexOf('commit'));
    expect(await itemIds(db)).toEqual([1, 2, 3]);
  });

  it('commits a group that waits for its idle COMMIT when the database closes', async () => {
    const { db, nextStatement, close, openSecondConnection } = await givenGroupCommitDatabase();
    const released = nextStatement('release erx_group_unit');
    const write = db.transaction().execute((trx) => insertItem(trx, 1));
    await released; // the unit has ended and handed over; its group waits for the event loop to idle
    await close();
    await write;
    expect(await itemIds(await openSecondConnection())).toEqual([1]);
  });
});

describe('SQLite group commit and controlled transactions', () => {
  it('keeps savepoints working inside the group and resolves commit() after the COMMIT', async () => {
    const { db, log } = await givenGroupCommitDatabase();
    const trx = await db.startTransaction().execute();
    const neighbour = db.transaction().execute((other) => insertItem(other, 10));
    await insertItem(trx, 1);
    const afterOne = await trx.savepoint('after_one').execute();
    await insertItem(afterOne, 2);
    await afterOne.rollbackToSavepoint('after_one').execute();
    await insertItem(afterOne, 3);
    await afterOne.releaseSavepoint('after_one').execute();
    await afterOne.commit().execute();
    log.push('commit() resolved');
    await neighbour;
    expect(count(log, 'commit')).toBe(1);
    expect(log.indexOf('commit() resolved')).toBeGreaterThan(log.indexOf('commit'));
    expect(await itemIds(db)).toEqual([1, 3, 10]);
  });

  it('refuses the savepoint name the driver uses for each unit', async () => {
    const { db } = await givenGroupCommitDatabase();
    const trx = await db.startTransaction().execute();
    await expect(trx.savepoint('erx_group_unit').execute()).rejects.toThrow(/reserved/);
    await trx.rollback().execute();
  });

  it('rolls back a controlled transaction without touching its group neighbours', async () => {
    const { db } = await givenGroupCommitDatabase();
    const trx = await db.startTransaction().execute();
    const neighbour = db.transaction().execute((other) => insertItem(other, 2));
    await insertItem(trx, 1);
    await trx.rollback().execute();
    await neighbour;
    expect(await itemIds(db)).toEqual([2]);
  });
});
