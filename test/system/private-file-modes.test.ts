// Every file erx writes is 0600 (issue 38 item 1), whatever the process's umask and whatever was
// left at the name before: a backup and its signature (over a leftover partial signature, with
// --force over a readable file), the live database a restore puts in place, the copy it keeps
// aside of the one it replaced (and that copy's WAL), and `erx audit export`'s file
// (test/audit/audit-list.test.ts). The keys of the data directory: test/platform/data-directory-modes.test.ts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { openDatabase, sqliteFileIn } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { backupDatabase, restoreDatabase } from '../../src/system/index.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-file-modes-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const settings = { clock: new ManualClock(), secretKey: randomBytes(32), operator: 'ops' };
const dataDir = path.join(scratch, 'data');
const location = { databaseUrl: undefined, dataDir };
const live = sqliteFileIn(dataDir);
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

// A permissive umask, as a service started by hand or by a careless unit file may have.
let umask: number;
beforeEach(() => {
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
});

beforeAll(async () => {
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const database = await openDatabase({ sqliteFile: live });
  await migrateToLatest(database);
  await database.close();
});

describe('files erx writes', () => {
  it('a backup and its signature are 0600, even over a leftover partial signature readable by all', async () => {
    const file = path.join(scratch, 'leftover.sqlite');
    fs.writeFileSync(`${file}.sig.partial`, 'left by a crash', { mode: 0o644 });
    const result = await backupDatabase(location, file, settings);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(result.signature)).toBe(0o600);
  });

  it('a backup written with --force over a file readable by all is 0600', async () => {
    const file = path.join(scratch, 'forced.sqlite');
    fs.writeFileSync(file, 'an older file', { mode: 0o644 });
    fs.writeFileSync(`${file}.sig`, 'an older signature', { mode: 0o644 });
    await backupDatabase(location, file, settings, { force: true });
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(`${file}.sig`)).toBe(0o600);
  });

  it('a restore puts the database in place 0600 and keeps the one it replaced aside 0600, even when that one was readable by all', async () => {
    const file = path.join(scratch, 'to-restore.sqlite');
    await backupDatabase(location, file, settings);
    fs.chmodSync(live, 0o644);
    fs.writeFileSync(`${live}-wal`, '', { mode: 0o644 });
    const restored = await restoreDatabase(location, file, settings);
    expect(restored.keptAside).not.toBeNull();
    expect(modeOf(restored.keptAside!)).toBe(0o600);
    expect(modeOf(live)).toBe(0o600);
    if (fs.existsSync(`${restored.keptAside}-wal`)) expect(modeOf(`${restored.keptAside}-wal`)).toBe(0o600);
  });
});
