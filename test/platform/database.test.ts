import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../src/platform/db/database.ts';
import { migrateToLatest, MIGRATIONS } from '../../src/platform/db/migrator.ts';
import { dropSchemas } from '../global-setup.ts';
import { precompileQuery } from '../../src/platform/db/precompiled-query.ts';
import { createTestDatabase, newTestSchemaName, TEST_DATABASE_URL, type TestDatabase } from '../test-app.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('the database this suite runs on', () => {
  it('is PostgreSQL exactly when DATABASE_URL is set', async () => {
    if (TEST_DATABASE_URL) {
      expect(database.handle.kind).toBe('postgres');
      const { rows } = await sql<{ version: string }>`select version() as version`.execute(database.handle);
      expect(rows[0]!.version).toMatch(/^PostgreSQL/);
    } else {
      expect(database.handle.kind).toBe('sqlite');
    }
  });

  it('applies migrations once: a second run has nothing to do', async () => {
    expect(await migrateToLatest(database.handle)).toEqual({ applied: [] });
  });

  it('applies a lower-numbered migration merged after a higher one already ran', async () => {
    const schema = TEST_DATABASE_URL ? newTestSchemaName('m') : undefined;
    const handle = await openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: schema });
    try {
      const { '0008-portal': portal, ...before } = MIGRATIONS;
      expect(portal).toBeDefined();
      expect((await migrateToLatest(handle, before)).applied).toContain('0009-idempotency-keys');
      expect(await migrateToLatest(handle)).toEqual({ applied: ['0008-portal'] });
      expect(await handle.selectFrom('portal_sessions').selectAll().execute()).toEqual([]);
    } finally {
      await handle.close();
      if (TEST_DATABASE_URL && schema) await dropSchemas(TEST_DATABASE_URL, [schema]);
    }
  });

  it('runs a precompiled query with fresh values each time', async () => {
    const db = database.handle;
    const now = new Date().toISOString();
    await db.insertInto('partners').values([
      { id: 'p-one', name: 'One', secret_hash: 'h1', webhook_url: null, webhook_secret_encrypted: null, created_at: now },
      { id: 'p-two', name: 'Two', secret_hash: 'h2', webhook_url: null, webhook_secret_encrypted: null, created_at: now },
    ]).execute();
    const findName = precompileQuery<{ id: string; now: string }, { name: string }>((db, param) =>
      db.selectFrom('partners').select('name').where('id', '=', param('id')).where('created_at', '=', param('now')),
    );
    expect(await findName(db, { id: 'p-one', now })).toEqual([{ name: 'One' }]);
    expect(await findName(db, { id: 'p-two', now })).toEqual([{ name: 'Two' }]);
    expect(await findName(db, { id: 'p-three', now })).toEqual([]);
    expect(await db.transaction().execute(async (trx) => findName(trx, { id: "p-one", now }))).toEqual([{ name: 'One' }]);
  });
});

describe('embedded SQLite', () => {
  it('opens its file in WAL mode with synchronous=NORMAL: the group-commit driver syncs the log itself (sqlite-wal-sync.ts)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-sqlite-'));
    const handle = await openDatabase({ sqliteFile: path.join(dir, 'nested', 'erx.sqlite') });
    try {
      const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(handle);
      const synchronous = await sql<{ synchronous: number }>`pragma synchronous`.execute(handle);
      expect(journal.rows[0]!.journal_mode).toBe('wal');
      expect(synchronous.rows[0]!.synchronous).toBe(1);
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // The group-commit driver runs an autocommit write without a savepoint of its own because
  // SQLite undoes a failed statement in full (sqlite-group-commit-groups.ts). An ON CONFLICT
  // FAIL constraint or a trigger that can RAISE(FAIL) would keep part of a failed write.
  it('has no ON CONFLICT FAIL constraint and no trigger in its schema', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-sqlite-'));
    const handle = await openDatabase({ sqliteFile: path.join(dir, 'erx.sqlite') });
    try {
      await migrateToLatest(handle);
      const { rows } = await sql<{ type: string; name: string; sql: string | null }>`select type, name, sql from sqlite_master`.execute(handle);
      expect(rows.filter((row) => row.type === 'table').length).toBeGreaterThan(5);
      expect(rows.filter((row) => row.type === 'trigger').map((row) => row.name)).toEqual([]);
      expect(rows.filter((row) => /on\s+conflict\s+fail/i.test(row.sql ?? '')).map((row) => row.name)).toEqual([]);
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
