// Test fixtures for the group-commit driver: a fresh SQLite database with an `items` table,
// opened through openDatabase, with every statement the driver runs logged in order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts';
import type { GroupCommitOptions } from '../../src/platform/db/sqlite/sqlite-group-commit.ts';

export interface GroupCommitDatabase {
  db: Kysely<any>;
  file: string;
  /** Every statement the driver ran since setup, in order, with the test's own markers mixed in. */
  log: string[];
  /** Throws `error` instead of running the next statement whose text is `text`. */
  failNext(text: string, error: Error): void;
  /** Resolves when the next statement with this text is about to run. */
  nextStatement(text: string): Promise<void>;
  /** Another connection to the same file, as a second process would have. */
  openSecondConnection(): Promise<Kysely<any>>;
  /** Closes the database, as the server does when it shuts down. */
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];

/** Closes every database the test opened and removes its files; call it in afterEach. */
export async function closeGroupCommitDatabases(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** A file database unless `inMemory`: ':memory:' has no reader connection, so reads go through the group. */
export async function givenGroupCommitDatabase(options: GroupCommitOptions & { inMemory?: true } = {}): Promise<GroupCommitDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-group-commit-'));
  const file = options.inMemory ? ':memory:' : path.join(dir, 'erx.sqlite');
  const log: string[] = [];
  let fault: { text: string; error: Error } | undefined;
  let awaited: { text: string; reached: () => void } | undefined;
  const onStatement = (text: string) => {
    if (fault?.text === text) {
      const { error } = fault;
      fault = undefined;
      throw error;
    }
    log.push(text);
    if (awaited?.text === text) awaited.reached();
  };
  // No time limit, so how units group depends only on the order they arrive in.
  const handle = await openDatabase({ sqliteFile: file, sqliteGroupCommit: { maxOpenMs: Infinity, ...options, onStatement } });
  const handles: DatabaseHandle[] = [handle];
  cleanups.push(async () => {
    for (const h of handles) await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const db = handle as unknown as Kysely<any>;
  await sql`create table items (id integer primary key, note text)`.execute(db);
  // Its group is durable; the next COMMIT may run a turn of the event loop after its fsync.
  await new Promise((resolve) => setImmediate(resolve));
  log.length = 0;
  return {
    db,
    file,
    log,
    failNext: (text, error) => {
      fault = { text, error };
    },
    nextStatement: (text) =>
      new Promise<void>((reached) => {
        awaited = { text, reached };
      }),
    async openSecondConnection() {
      const second = await openDatabase({ sqliteFile: file });
      handles.push(second);
      return second as unknown as Kysely<any>;
    },
    close: () => handle.close(),
  };
}

export const count = (log: string[], text: string) => log.filter((line) => line === text).length;
export const insertItem = (db: Kysely<any>, id: number) => db.insertInto('items').values({ id, note: `item ${id}` }).execute();
export const itemIds = async (db: Kysely<any>) => (await db.selectFrom('items').select('id').orderBy('id').execute()).map((row) => row.id);
export const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

