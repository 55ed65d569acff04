// erx backup and erx restore, run as the operator runs them, beside a real `erx serve` on
// SQLite: a backup taken during a burst of writes holds every write acknowledged before it
// began; a restore refuses while the server has the database open, keeps what it replaces and
// migrates what it puts back; every refusal is one line and a non-zero exit.
import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDatabase, openDatabase } from '../../src/platform/db/database.ts';
import { MIGRATIONS, migrateToLatest } from '../../src/platform/db/migrator.ts';
import { createCliEnvironment, ERX_BIN, expectOneLineRefusal, runErx, runErxJson, spawnServer, type CliEnvironment } from './cli-helpers.ts';

/** Backups are of the embedded database: these run on SQLite whatever database the suite runs on. */
function sqliteEnvironment(extra: Record<string, string> = {}): CliEnvironment & { dataDir: string } {
  const cli = createCliEnvironment(extra);
  delete cli.env.DATABASE_URL;
  delete cli.env.ERX_DATABASE_SCHEMA;
  return { ...cli, dataDir: cli.env.ERX_DATA_DIR! };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-backups-'));
const environments: CliEnvironment[] = [];
afterAll(async () => {
  for (const cli of environments) await cli.cleanup();
  fs.rmSync(scratch, { recursive: true, force: true });
});
function fresh(extra: Record<string, string> = {}) {
  const cli = sqliteEnvironment(extra);
  environments.push(cli);
  return cli;
}

/** `script` (util-linux) runs a command under a pseudo-terminal; outside CI its absence skips the terminal test. */
function terminalAvailable(): boolean {
  if (spawnSync('script', ['--version']).status === 0) return true;
  if (process.env.CI === 'true') throw new Error('`script` (util-linux) is missing, and CI must run the terminal test');
  console.warn('skipping the terminal progress test: `script` (util-linux) is not installed');
  return false;
}

/** What `erx args` writes to its terminal (stdout and stderr together). */
function underTerminal(env: Record<string, string>, args: string[]): Promise<string> {
  const command = [process.execPath, ERX_BIN, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    execFile('script', ['-qec', command, '/dev/null'], { env, timeout: 30_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

function readDatabase<T>(file: string, read: (db: InstanceType<typeof SqliteDatabase>) => T): T {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const drug = (name: string) => ({
  item_generic_name: name,
  item_strength: '500 mg',
  item_form: 'tablet',
  route_of_administration: 'oral',
  quantity: 20,
  max_repeats: 0,
  poison_class: 'S4',
});

describe('erx backup and restore beside a serving erx on SQLite', () => {
  const cli = fresh({ ERX_RATE_LIMIT_MAX: '0', ERX_CUSTOM_DRUGS_MAX: '1000000' });
  let server: { child: ChildProcess; url: string };
  let drugsUrl: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const seed = await runErxJson(cli.env, ['sandbox', 'seed']);
    server = await spawnServer(cli.env);
    const credentials = {
      'content-type': 'application/json',
      'x-partner-id': seed.partner_id,
      'x-partner-secret': seed.partner_secret,
      'x-organization-id': seed.organization_id,
      'x-organization-secret': seed.organization_secret,
      'x-user-id': seed.owner.user_id,
    };
    const token = await fetch(`${server.url}/v1/token`, {
      method: 'POST',
      headers: credentials,
      body: JSON.stringify({ grantType: 'client_credentials', scope: ['create:custom_drug'] }),
    });
    expect(token.status).toBe(200);
    headers = { 'content-type': 'application/json', 'x-organization-secret': seed.organization_secret, authorization: `Bearer ${(await token.json()).data.accessToken}` };
    const catalogUrl = `${server.url}/v1/organizations/${seed.organization_id}/custom-drugs`;
    drugsUrl = `${server.url}/v1/organizations/${seed.organization_id}/users/${seed.owner.user_id}/custom-drugs`;
    // A few MB before the burst, so the copy takes several steps while writes go on.
    for (let batch = 0; batch < 4; batch += 1) {
      const body = Array.from({ length: 1000 }, (_, i) => ({ ...drug(`prefill ${batch}-${i}`), description: 'x'.repeat(200) }));
      const response = await fetch(catalogUrl, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(response.status).toBe(200);
    }
  }, 120_000);
  afterAll(() => (server ? stopServer(server.child) : undefined));

  it('/readyz of erx serve also checks the webhook dispatcher it runs', async () => {
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', dispatcher: 'ok' } });
  });

  it('backs up during a write burst: restored into a fresh data directory, every write acknowledged before the backup began is there, and integrity_check is ok', async () => {
    const acked: Array<{ id: string; at: number }> = [];
    let writing = true;
    const writer = async (n: number) => {
      for (let i = 0; writing; i += 1) {
        const response = await fetch(drugsUrl, { method: 'POST', headers, body: JSON.stringify(drug(`burst ${n}-${i}`)) });
        expect(response.status).toBe(201);
        acked.push({ id: (await response.json()).data.custom_drug_id, at: performance.now() });
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    const deadline = Date.now() + 30_000;
    while (acked.length < 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));

    const file = path.join(scratch, 'during-burst.sqlite');
    const backupBegan = performance.now();
    const backup = await runErx(cli.env, ['backup', file, '--json']);
    const backupEnded = performance.now();
    writing = false;
    await Promise.all(writers);

    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, integrity: 'ok' });
    expect(modeOf(file)).toBe(0o600);
    const before = acked.filter((write) => write.at < backupBegan);
    const during = acked.filter((write) => write.at >= backupBegan && write.at <= backupEnded);
    console.info(`backup during the burst: ${before.length} writes acknowledged before it, ${during.length} while it ran (${(backupEnded - backupBegan).toFixed(0)} ms, ${JSON.parse(backup.stdout).bytes} bytes)`);
    expect(before.length).toBeGreaterThanOrEqual(100);
    expect(during.length).toBeGreaterThan(0);

    // Another instance restores it with the same secret key (which the encrypted identifiers and the backup's signature need).
    const target = fresh();
    fs.copyFileSync(path.join(cli.dataDir, 'secret.key'), path.join(target.dataDir, 'secret.key'));
    expect(modeOf(`${file}.sig`)).toBe(0o600);
    const restored = await runErxJson(target.env, ['restore', file]);
    expect(restored).toMatchObject({ keptAside: null, migrationsApplied: [], signed: true });
    const live = path.join(target.dataDir, 'erx.sqlite');
    expect(modeOf(live)).toBe(0o600);
    const { integrity, ids } = readDatabase(live, (db) => ({
      integrity: db.pragma('integrity_check', { simple: true }),
      ids: new Set((db.prepare('select id from custom_drugs').all() as Array<{ id: string }>).map((row) => row.id)),
    }));
    expect(integrity).toBe('ok');
    expect(before.filter((write) => !ids.has(write.id))).toEqual([]);
  }, 120_000);

  it('refuses to restore while the server has the database open, and changes nothing', async () => {
    const file = path.join(scratch, 'while-serving.sqlite');
    expect((await runErx(cli.env, ['backup', file])).code).toBe(0);
    const result = await runErx(cli.env, ['restore', file]);
    expectOneLineRefusal(result, /the database .*erx\.sqlite is in use: stop erx serve/);
    expect(fs.readdirSync(cli.dataDir).filter((name) => name.includes('before-restore') || name.includes('restoring'))).toEqual([]);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);

  it('once the server stops, restores: the replaced database kept aside (0600), the backup in place, and the server serves it', async () => {
    const file = path.join(scratch, 'to-restore.sqlite');
    expect((await runErx(cli.env, ['backup', file])).code).toBe(0);
    const drugsInBackup = readDatabase(file, (db) => db.prepare('select count(*) as n from custom_drugs').get());
    await stopServer(server.child);
    const restored = await runErxJson(cli.env, ['restore', file]);
    expect(restored.keptAside).toMatch(/erx\.sqlite\.before-restore-\d{8}T\d{6}Z$/);
    expect(modeOf(restored.keptAside)).toBe(0o600);
    expect(modeOf(path.join(cli.dataDir, 'erx.sqlite'))).toBe(0o600);
    expect(readDatabase(path.join(cli.dataDir, 'erx.sqlite'), (db) => db.prepare('select count(*) as n from custom_drugs').get())).toEqual(drugsInBackup);
    server = await spawnServer(cli.env);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);
});

describe.runIf(terminalAvailable())('erx backup on a terminal', () => {
  it('shows its progress up to 100% on stderr, and nothing but the JSON with --json', async () => {
    const cli = fresh();
    await runErxJson(cli.env, ['sandbox', 'seed']);
    const onTerminal = await underTerminal(cli.env, ['backup', path.join(scratch, 'terminal.sqlite')]);
    expect(onTerminal).toMatch(/\rbacking up: 0% \(0 of \d+ pages\)/);
    expect(onTerminal).toMatch(/\rbacking up: 100% \((\d+) of \1 pages\)\r?\n/);
    const asJson = await underTerminal(cli.env, ['backup', path.join(scratch, 'terminal.json.sqlite'), '--json']);
    expect(asJson).not.toContain('backing up');
    expect(JSON.parse(asJson).integrity).toBe('ok');
  }, 60_000);
});

describe('erx backup refuses', () => {
  const cli = fresh();
  beforeAll(async () => {
    await runErxJson(cli.env, ['sandbox', 'seed']);
  }, 60_000);

  it('a PostgreSQL configuration, pointing to pg_dump', async () => {
    const result = await runErx({ ...cli.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, ['backup', path.join(scratch, 'pg.sqlite')]);
    expectOneLineRefusal(result, /uses PostgreSQL \(DATABASE_URL\): use pg_dump$/);
    expect(fs.existsSync(path.join(scratch, 'pg.sqlite'))).toBe(false);
  });

  it('a target that exists, unless --force, which replaces it', async () => {
    const file = path.join(scratch, 'exists.sqlite');
    fs.writeFileSync(file, 'keep me');
    expectOneLineRefusal(await runErx(cli.env, ['backup', file]), /exists: choose another name, or add --force to replace it$/);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    const replaced = await runErxJson(cli.env, ['backup', file, '--force']);
    expect(replaced.integrity).toBe('ok');
    expect(readDatabase(file, (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok');
  }, 60_000);

  it('a target it cannot write, leaving no partial file', async () => {
    expectOneLineRefusal(await runErx(cli.env, ['backup', path.join(scratch, 'missing-dir', 'b.sqlite')]), /cannot write .*b\.sqlite: its directory does not exist$/);
    const aFile = path.join(scratch, 'a-file');
    fs.writeFileSync(aFile, '');
    expectOneLineRefusal(await runErx(cli.env, ['backup', path.join(aFile, 'b.sqlite')]), /cannot write .*: a part of its path is not a directory$/);
    expectOneLineRefusal(await runErx(cli.env, ['backup', scratch]), /is a directory/);
    expect(fs.readdirSync(scratch).filter((name) => name.includes('.partial-'))).toEqual([]);
  }, 60_000);

  it('the live database itself as the target, even with --force', async () => {
    const result = await runErx(cli.env, ['backup', path.join(cli.dataDir, 'erx.sqlite'), '--force']);
    expectOneLineRefusal(result, /is the live database/);
    expect(readDatabase(path.join(cli.dataDir, 'erx.sqlite'), (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok');
  });

  it('a data directory with no database yet', async () => {
    const empty = fresh();
    expectOneLineRefusal(await runErx(empty.env, ['backup', path.join(scratch, 'nothing.sqlite')]), /there is no database to back up/);
  });
});

describe('erx restore refuses', () => {
  const cli = fresh();
  let good: string;
  beforeAll(async () => {
    await runErxJson(cli.env, ['sandbox', 'seed']);
    good = path.join(scratch, 'good.sqlite');
    await runErxJson(cli.env, ['backup', good]);
  }, 60_000);

  const liveUntouched = () => {
    expect(fs.readdirSync(cli.dataDir).filter((name) => name.includes('before-restore') || name.includes('restoring'))).toEqual([]);
    expect(readDatabase(path.join(cli.dataDir, 'erx.sqlite'), (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok');
  };

  it('a PostgreSQL configuration, pointing to pg_restore', async () => {
    const result = await runErx({ ...cli.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, ['restore', good]);
    expectOneLineRefusal(result, /uses PostgreSQL \(DATABASE_URL\): use pg_restore$/);
  });

  it('a missing file, a file that is not SQLite, and an SQLite database that is not erx', async () => {
    expectOneLineRefusal(await runErx(cli.env, ['restore', path.join(scratch, 'absent.sqlite')]), /there is no backup file at/);
    const text = path.join(scratch, 'text.sqlite');
    fs.writeFileSync(text, 'x'.repeat(8192));
    expectOneLineRefusal(await runErx(cli.env, ['restore', text]), /text\.sqlite is not an SQLite database$/);
    const other = path.join(scratch, 'other.sqlite');
    const db = new SqliteDatabase(other);
    db.exec('create table notes (body text)');
    db.close();
    expectOneLineRefusal(await runErx(cli.env, ['restore', other]), /is an SQLite database but not one of erx \(it has no migrations table\)$/);
    liveUntouched();
  }, 60_000);

  it('a damaged backup (integrity_check fails)', async () => {
    const damaged = path.join(scratch, 'damaged.sqlite');
    fs.copyFileSync(good, damaged);
    // Overwrite the middle of the file (table and index pages), leaving the header intact.
    const fd = fs.openSync(damaged, 'r+');
    const size = fs.fstatSync(fd).size;
    fs.writeSync(fd, Buffer.alloc(Math.floor(size / 2), 0x5a), 0, Math.floor(size / 2), Math.floor(size / 4));
    fs.closeSync(fd);
    const result = await runErx(cli.env, ['restore', damaged]);
    expectOneLineRefusal(result, /damaged\.sqlite (fails SQLite's integrity check|is not an SQLite database)/);
    liveUntouched();
  }, 60_000);

  it('a backup from a newer erx (a migration this build does not know)', async () => {
    const newer = path.join(scratch, 'newer.sqlite');
    fs.copyFileSync(good, newer);
    const db = new SqliteDatabase(newer);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999-from-the-future', new Date().toISOString());
    db.close();
    expectOneLineRefusal(await runErx(cli.env, ['restore', newer]), /comes from a newer erx: its migrations 9999-from-the-future are unknown to this one$/);
    liveUntouched();
  }, 60_000);
});

describe('erx restore of a backup from an older erx', () => {
  it('applies the migrations it lacks once it is in place', async () => {
    const older = path.join(scratch, 'older.sqlite');
    const names = Object.keys(MIGRATIONS);
    const withoutLast = Object.fromEntries(names.slice(0, -1).map((name) => [name, MIGRATIONS[name]!]));
    const database = await openDatabase({ sqliteFile: older });
    await migrateToLatest(database, withoutLast);
    await database.close();
    const target = fresh();
    // Older backups carry no signature: restored only when the operator accepts that.
    expectOneLineRefusal(await runErx(target.env, ['restore', older]), /carries no signature/);
    const restored = await runErxJson(target.env, ['restore', older, '--accept-unsigned']);
    expect(restored).toMatchObject({ migrationsApplied: [names.at(-1)], signed: false });
    const applied = readDatabase(path.join(target.dataDir, 'erx.sqlite'), (db) => (db.prepare('select name from kysely_migration').all() as Array<{ name: string }>).map((row) => row.name));
    expect(applied.sort()).toEqual([...names].sort());
  }, 60_000);
});
