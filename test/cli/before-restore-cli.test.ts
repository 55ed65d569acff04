// The databases `erx restore` sets aside (issue 38 item 8): each is a whole copy of the records as
// they were, and before they were kept unseen for ever. `erx restore --list` shows them with when
// `erx prune` deletes them; `erx prune` deletes those older than ERX_RETENTION_BEFORE_RESTORE_DAYS
// (a dry run only names them), with their -wal. And `erx backup` leaves admin.database_backup in
// the live database's audit trail (issue 38 item 4). Restore works on SQLite: these run on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../src/platform/db/database.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from './cli-helpers.ts';

const DAY_MS = 86_400_000;
let cli: CliEnvironment;
let dataDir: string;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-before-restore-'));

beforeAll(async () => {
  cli = createCliEnvironment();
  delete cli.env.DATABASE_URL;
  delete cli.env.ERX_DATABASE_SCHEMA;
  dataDir = cli.env.ERX_DATA_DIR!;
  expect((await runErx(cli.env, ['migrate'])).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await cli?.cleanup();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const live = () => path.join(dataDir, 'erx.sqlite');

describe('erx backup in the audit trail', () => {
  it('leaves one admin.database_backup entry, by the operator who ran it', async () => {
    const file = path.join(scratch, 'audited.sqlite');
    await runErxJson(cli.env, ['backup', file]);
    const db = new SqliteDatabase(live(), { readonly: true });
    try {
      const last = db.prepare('select action, actor_kind, operator, detail from audit_entries order by seq desc limit 1').get();
      expect(last).toEqual({ action: 'admin.database_backup', actor_kind: 'operator', operator: os.userInfo().username, detail: JSON.stringify({ signed: true }) });
    } finally {
      db.close();
    }
  }, 60_000);
});

describe('the databases restores set aside', () => {
  it('are listed with when erx prune deletes them, and pruned once older than the retention, with their -wal', async () => {
    const backup = path.join(scratch, 'backup.sqlite');
    await runErxJson(cli.env, ['backup', backup]);
    const first = await runErxJson(cli.env, ['restore', backup]);
    const second = await runErxJson(cli.env, ['restore', backup]);
    // One set aside 40 days ago (as a restore names it), with the -wal a restore may move beside it.
    const old = path.join(dataDir, `erx.sqlite.before-restore-${new Date(Date.now() - 40 * DAY_MS).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}`);
    fs.copyFileSync(first.keptAside, old);
    fs.writeFileSync(`${old}-wal`, '');

    const listed = await runErxJson<Array<{ file: string; set_aside_at: string; bytes: number; pruned_from: string }>>(cli.env, ['restore', '--list']);
    expect(listed.map((copy) => copy.file)).toEqual([old, first.keptAside, second.keptAside]);
    for (const copy of listed) {
      expect(copy.bytes).toBe(fs.statSync(copy.file).size);
      expect(Date.parse(copy.pruned_from) - Date.parse(copy.set_aside_at)).toBe(30 * DAY_MS);
    }
    const text = await runErx(cli.env, ['restore', '--list']);
    expect(text.stdout.trim().split('\n')).toHaveLength(3);
    expect(text.stdout).toContain(`${old}  (erx prune deletes it from ${listed[0]!.pruned_from})`);

    const dry = await runErxJson(cli.env, ['prune', '--dry-run']);
    expect(dry.before_restore_copies).toEqual({ dry_run: true, retention_days: 30, removed: [old] });
    expect(fs.existsSync(old)).toBe(true);
    const real = await runErxJson(cli.env, ['prune']);
    expect(real.before_restore_copies).toEqual({ dry_run: false, retention_days: 30, removed: [old] });
    expect([fs.existsSync(old), fs.existsSync(`${old}-wal`), fs.existsSync(first.keptAside), fs.existsSync(second.keptAside)]).toEqual([false, false, true, true]);

    // The setting decides: with 1 day, a copy set aside 2 days ago goes too; the live database stays.
    const twoDays = path.join(dataDir, `erx.sqlite.before-restore-${new Date(Date.now() - 2 * DAY_MS).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}-2`);
    fs.copyFileSync(first.keptAside, twoDays);
    expect((await runErxJson(cli.env, ['prune', '--dry-run'])).before_restore_copies.removed).toEqual([]);
    const shorter = await runErxJson({ ...cli.env, ERX_RETENTION_BEFORE_RESTORE_DAYS: '1' }, ['prune']);
    expect(shorter.before_restore_copies).toEqual({ dry_run: false, retention_days: 1, removed: [twoDays] });
    expect([fs.existsSync(twoDays), fs.existsSync(first.keptAside), fs.existsSync(live())]).toEqual([false, true, true]);
  }, 120_000);

  it('lists nothing when no restore set one aside, and refuses --list with a file, or no file at all', async () => {
    const empty = createCliEnvironment();
    delete empty.env.DATABASE_URL;
    delete empty.env.ERX_DATABASE_SCHEMA;
    try {
      expect(await runErxJson(empty.env, ['restore', '--list'])).toEqual([]);
      expect((await runErx(empty.env, ['restore', '--list'])).stdout).toContain('no database set aside by a restore');
    } finally {
      await empty.cleanup();
    }
    expectOneLineRefusal(await runErx(cli.env, ['restore', '--list', 'backup.sqlite']), /--list takes no file/);
    expectOneLineRefusal(await runErx(cli.env, ['restore']), /give the backup file to restore/);
    expectOneLineRefusal(await runErx({ ...cli.env, ERX_RETENTION_BEFORE_RESTORE_DAYS: '0' }, ['restore', '--list']), /ERX_RETENTION_BEFORE_RESTORE_DAYS/);
  }, 60_000);
});
