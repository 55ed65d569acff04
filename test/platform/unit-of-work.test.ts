// The unit of work with kinds of record registered here, in the test: a change's records are
// written in its transaction by their kind's sink and followed up after its commit, exactly
// those of that transaction, and none of a transaction that rolled back. A second kind of
// record (as the audit trail will be) is one more sink in the list given to createUnitOfWork.
import { Writable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database-schema.ts';
import { createUnitOfWork, recordKind, type RecordKind, type RecordSink, type UnitOfWork } from '../../src/platform/db/unit-of-work.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createTestDatabase, type TestDatabase } from '../test-app.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await sql`create table uow_test_rows (kind text not null, body text not null)`.execute(database.handle);
});
afterAll(() => database.drop());

/** A sink that stores its records as rows of `kind` and remembers each follow-up it was given. */
function rowSink(kind: RecordKind<string>, options: { failWrite?: boolean } = {}) {
  const followedUp: string[][] = [];
  const sink: RecordSink<string> = {
    kind,
    async write(trx, records) {
      for (const body of records) await sql`insert into uow_test_rows (kind, body) values (${kind.name}, ${body})`.execute(trx);
      if (options.failWrite) throw new Error(`${kind.name} could not be written`);
    },
    afterCommit(records) {
      followedUp.push([...records]);
    },
  };
  return { sink, followedUp };
}

async function rowsOf(kind: string): Promise<string[]> {
  const { rows } = await sql<{ body: string }>`select body from uow_test_rows where kind = ${kind} order by body`.execute(database.handle);
  return rows.map((row) => row.body);
}

/** The change's own row, written with its transaction. */
async function insertChange(trx: Kysely<Database>, body: string): Promise<void> {
  await sql`insert into uow_test_rows (kind, body) values ('change', ${body})`.execute(trx);
}

function capturedLogger() {
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
  return { logger, lines };
}

let run = 0;
/** Kinds named afresh for each test, so each test reads only its own rows. */
function freshKinds() {
  run += 1;
  return { notes: recordKind<string>(`notes-${run}`), audit: recordKind<string>(`audit-${run}`) };
}

describe('a unit of work with two kinds of record', () => {
  it("writes each kind's records in the change's transaction and follows up exactly those after the commit", async () => {
    const { notes, audit } = freshKinds();
    const notesSink = rowSink(notes);
    const auditSink = rowSink(audit);
    // The second kind is one more sink in this list.
    const unitOfWork = createUnitOfWork(database.handle, [notesSink.sink, auditSink.sink], capturedLogger().logger);
    const result = await unitOfWork.run(async ({ trx, record }) => {
      await insertChange(trx, `c-${run}`);
      record(notes, 'n1');
      record(audit, 'a1');
      record(notes, 'n2');
      return 'done';
    });
    expect(result).toBe('done');
    expect([await rowsOf(notes.name), await rowsOf(audit.name)]).toEqual([['n1', 'n2'], ['a1']]);
    expect(notesSink.followedUp).toEqual([['n1', 'n2']]);
    expect(auditSink.followedUp).toEqual([['a1']]);
  });

  it('follows up nothing for a sink the change left no record of', async () => {
    const { notes, audit } = freshKinds();
    const notesSink = rowSink(notes);
    const auditSink = rowSink(audit);
    const unitOfWork = createUnitOfWork(database.handle, [notesSink.sink, auditSink.sink], capturedLogger().logger);
    await unitOfWork.run(async ({ record }) => record(audit, 'a1'));
    expect([notesSink.followedUp, auditSink.followedUp]).toEqual([[], [['a1']]]);
  });

  it('leaves no change and no record, and follows none up, when the change fails', async () => {
    const { notes, audit } = freshKinds();
    const notesSink = rowSink(notes);
    const auditSink = rowSink(audit);
    const unitOfWork = createUnitOfWork(database.handle, [notesSink.sink, auditSink.sink], capturedLogger().logger);
    const change = unitOfWork.run(async ({ trx, record }) => {
      await insertChange(trx, `failed-${run}`);
      record(notes, 'n1');
      record(audit, 'a1');
      throw new Error('the change failed');
    });
    await expect(change).rejects.toThrow('the change failed');
    expect([await rowsOf(notes.name), await rowsOf(audit.name), (await rowsOf('change')).includes(`failed-${run}`)]).toEqual([[], [], false]);
    expect([notesSink.followedUp, auditSink.followedUp]).toEqual([[], []]);
  });

  it("rolls back the change and the other kinds' records already written when a sink's write fails", async () => {
    const { notes, audit } = freshKinds();
    const notesSink = rowSink(notes);
    const auditSink = rowSink(audit, { failWrite: true });
    const unitOfWork = createUnitOfWork(database.handle, [notesSink.sink, auditSink.sink], capturedLogger().logger);
    const change = unitOfWork.run(async ({ trx, record }) => {
      await insertChange(trx, `unwritten-${run}`);
      record(notes, 'n1');
      record(audit, 'a1');
    });
    await expect(change).rejects.toThrow(`${audit.name} could not be written`);
    expect([await rowsOf(notes.name), await rowsOf(audit.name), (await rowsOf('change')).includes(`unwritten-${run}`)]).toEqual([[], [], false]);
    expect([notesSink.followedUp, auditSink.followedUp]).toEqual([[], []]);
  });

  it('follows up each of two concurrent units of work with its own records only', async () => {
    const { notes } = freshKinds();
    const notesSink = rowSink(notes);
    const unitOfWork = createUnitOfWork(database.handle, [notesSink.sink], capturedLogger().logger);
    const recordAll = (unit: UnitOfWork, bodies: string[]) =>
      unit.run(async ({ record }) => {
        for (const body of bodies) record(notes, body);
      });
    await Promise.all([recordAll(unitOfWork, ['a1', 'a2']), recordAll(unitOfWork, ['b1'])]);
    expect(notesSink.followedUp.map((records) => records.join()).sort()).toEqual(['a1,a2', 'b1']);
  });

  it('logs a follow-up that throws and still answers the committed change', async () => {
    const { notes } = freshKinds();
    const { logger, lines } = capturedLogger();
    const failing: RecordSink<string> = { ...rowSink(notes).sink, afterCommit: () => { throw new Error('wake-up failed'); } };
    const unitOfWork = createUnitOfWork(database.handle, [failing], logger);
    expect(await unitOfWork.run(async ({ record }) => (record(notes, 'n1'), 'committed'))).toBe('committed');
    expect(await rowsOf(notes.name)).toEqual(['n1']);
    expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ level: 50, kind: notes.name, msg: 'unit of work: a follow-up after commit failed' })]);
  });
});

describe('what a unit of work refuses', () => {
  it('refuses a record of a kind no sink is registered for, and the change rolls back', async () => {
    const { notes, audit } = freshKinds();
    const unitOfWork = createUnitOfWork(database.handle, [rowSink(notes).sink], capturedLogger().logger);
    const change = unitOfWork.run(async ({ trx, record }) => {
      await insertChange(trx, `unregistered-${run}`);
      record(audit, 'a1');
    });
    await expect(change).rejects.toThrow(`no sink is registered for records of kind ${audit.name}`);
    expect((await rowsOf('change')).includes(`unregistered-${run}`)).toBe(false);
  });

  it('refuses a record made after its transaction ended', async () => {
    const { notes } = freshKinds();
    const notesSink = rowSink(notes);
    const unitOfWork = createUnitOfWork(database.handle, [notesSink.sink], capturedLogger().logger);
    const kept = await unitOfWork.run(async (work) => work);
    expect(() => kept.record(notes, 'late')).toThrow(`a record of kind ${notes.name} came after its transaction ended`);
    expect(notesSink.followedUp).toEqual([]);
  });

  it('refuses two sinks for one kind', () => {
    const { notes } = freshKinds();
    expect(() => createUnitOfWork(database.handle, [rowSink(notes).sink, rowSink(notes).sink], capturedLogger().logger)).toThrow(`two sinks for records of kind ${notes.name}`);
  });
});
