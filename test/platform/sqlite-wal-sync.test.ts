// Durability off the event loop: the writer commits with synchronous=NORMAL, and a group is
// released (its units settle, reads outside transactions see it) only once the fsync of the
// log, run on the thread pool, has returned. Here each fsync is held back by the test, to show
// that nothing of a group is released before it, and what a failed fsync does.
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.ts';
import { closeGroupCommitDatabases, count, givenGroupCommitDatabase, insertItem, itemIds } from './sqlite-group-commit-given.ts';

afterEach(closeGroupCommitDatabases);

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Once held, each fsync of the log waits until the test lets it run (or fails it). */
function heldSyncs() {
  const waiting: Array<{ run: () => void; fail: (error: Error) => void }> = [];
  let ran = 0;
  let holding = false;
  return {
    aroundSync: (sync: () => Promise<void>) =>
      holding
        ? new Promise<void>((resolve, reject) => {
            waiting.push({ run: () => sync().then(() => ((ran += 1), resolve()), reject), fail: reject });
          })
        : sync(),
    hold: () => {
      holding = true;
    },
    waiting: () => waiting.length,
    ran: () => ran,
    release: () => waiting.shift()!.run(),
    fail: (error: Error) => waiting.shift()!.fail(error),
  };
}

/** Whether `promise` has settled (after a few turns of the event loop). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await turns(5);
  return done;
}

describe('SQLite durability (WAL fsync off the event loop)', () => {
  it('settles a group only once the fsync of the log has returned; the next group fills up behind it and commits after it', async () => {
    const syncs = heldSyncs();
    const { db, log } = await givenGroupCommitDatabase(syncs);
    syncs.hold();
    const first = insertItem(db, 1);
    expect(await settled(first)).toBe(false);
    expect(count(log, 'commit')).toBe(1);
    expect(syncs.waiting()).toBe(1);
    const second = [insertItem(db, 2), db.transaction().execute((trx) => insertItem(trx, 3))];
    expect(await settled(Promise.all(second))).toBe(false);
    expect(count(log, 'commit')).toBe(1);
    syncs.release();
    await first;
    await turns(5);
    expect(count(log, 'commit')).toBe(2);
    expect(await settled(Promise.all(second))).toBe(false);
    syncs.release();
    await Promise.all(second);
    expect(syncs.ran()).toBe(2);
    expect(count(log, 'begin immediate')).toBe(2);
  });

  it('makes a read outside a transaction wait for the fsync of what is committed, then shows it', async () => {
    const syncs = heldSyncs();
    const { db } = await givenGroupCommitDatabase(syncs);
    syncs.hold();
    const fast = (db as unknown as DatabaseHandle).sqliteFastPath!;
    expect(fast.readNow('select id from items', [])?.rows).toEqual([]);
    const write = insertItem(db, 1);
    await turns(3);
    expect(syncs.waiting()).toBe(1);
    // Committed on the file, not yet durable: neither the fast path nor Kysely's shows it.
    expect(fast.readNow('select id from items', [])).toBeUndefined();
    const read = itemIds(db);
    expect(await settled(read)).toBe(false);
    syncs.release();
    expect(await read).toEqual([1]);
    await write;
    await turns(1);
    expect(fast.readNow('select id from items', [])?.rows).toEqual([{ id: 1 }]);
  });

  it('rejects every unit of a group whose fsync failed, and every write after it (nothing is acknowledged on a disk that lost writes)', async () => {
    const syncs = heldSyncs();
    const { db } = await givenGroupCommitDatabase(syncs);
    syncs.hold();
    const lost = [insertItem(db, 1), db.transaction().execute((trx) => insertItem(trx, 2))];
    await turns(3);
    const behind = insertItem(db, 3);
    await turns(3);
    syncs.fail(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    for (const unit of [...lost, behind]) await expect(unit).rejects.toThrow('EIO');
    await expect(insertItem(db, 4)).rejects.toThrow('EIO');
    await expect(itemIds(db)).rejects.toThrow('EIO');
  });

  it('runs one fsync per group on a real file', async () => {
    let syncs = 0;
    const { db, log } = await givenGroupCommitDatabase({ aroundSync: (sync) => ((syncs += 1), sync()) });
    syncs = 0;
    await Promise.all([1, 2, 3].map((id) => db.transaction().execute((trx) => insertItem(trx, id))));
    await insertItem(db, 4);
    expect(syncs).toBe(count(log, 'commit'));
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(await itemIds(db)).toEqual([1, 2, 3, 4]);
  });
});
