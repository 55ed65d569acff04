// The data directory holds the SQLite file (patient data) and the sandbox's generated keys:
// only the service's user may read them, whatever the process umask.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, sqliteFileIn } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { loadSecretKey, loadSigningKeys } from '../../src/runtime.ts';

let root: string;
let previousUmask: number;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-modes-'));
  // The widest usual umask: what the service sets itself must not depend on it.
  previousUmask = process.umask(0o002);
});
afterAll(() => {
  process.umask(previousUmask);
  fs.rmSync(root, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

/** Opens the SQLite file in `dataDir`, writes through it (so -wal and -shm exist), and closes it. */
async function useSqliteIn(dataDir: string): Promise<string> {
  const file = sqliteFileIn(dataDir);
  const database = await openDatabase({ sqliteFile: file });
  await migrateToLatest(database);
  expect(fs.existsSync(`${file}-wal`) && fs.existsSync(`${file}-shm`)).toBe(true);
  const modes = [file, `${file}-wal`, `${file}-shm`].map(modeOf);
  await database.close();
  expect(modes).toEqual([0o600, 0o600, 0o600]);
  return file;
}

describe('the data directory', () => {
  it('is created 0700, with the SQLite file, its -wal and -shm, and the generated keys 0600', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    await useSqliteIn(dataDir);
    expect(modeOf(dataDir)).toBe(0o700);
    const config = loadConfig({ ERX_DATA_DIR: dataDir });
    await loadSigningKeys(config);
    loadSecretKey(config);
    expect(modeOf(path.join(dataDir, 'jwt-signing-key.pem'))).toBe(0o600);
    expect(modeOf(path.join(dataDir, 'secret.key'))).toBe(0o600);
  });

  it('gets keys 0600 in a directory of its own when the keys come first', async () => {
    const dataDir = path.join(root, 'keys-first');
    loadSecretKey(loadConfig({ ERX_DATA_DIR: dataDir }));
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, 'secret.key'))).toBe(0o600);
  });

  it("narrows the service's own files found wider to 0600, and leaves an existing directory's mode alone", async () => {
    const dataDir = path.join(root, 'older');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const file = await useSqliteIn(dataDir);
    // Closing removed -wal and -shm; SQLite makes them again with the database file's mode.
    fs.chmodSync(file, 0o644);
    const config = loadConfig({ ERX_DATA_DIR: dataDir });
    await loadSigningKeys(config);
    loadSecretKey(config);
    for (const key of ['jwt-signing-key.pem', 'secret.key']) fs.chmodSync(path.join(dataDir, key), 0o644);

    await useSqliteIn(dataDir);
    await loadSigningKeys(config);
    loadSecretKey(config);
    expect(modeOf(path.join(dataDir, 'jwt-signing-key.pem'))).toBe(0o600);
    expect(modeOf(path.join(dataDir, 'secret.key'))).toBe(0o600);
    expect(modeOf(dataDir)).toBe(0o755);
  });
});
