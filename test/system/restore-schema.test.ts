// erx restore puts back only erx's own database (issue 38 item 7). The attack: a backup with a
// planted trigger that sends every token SMS to another number while the API shows the real
// one; restored, the trigger lived on. Refused now, two ways: the backup's signature (HMAC
// under the secret key, <file>.sig) no longer matches, and, signature or not, sqlite_master
// must be exactly what the migrations make. Older, unsigned backups need --accept-unsigned,
// which the restore's audit entry records. In-process on the embedded database.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { openDatabase, SqliteDatabase, sqliteFileIn } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { backupDatabase, restoreDatabase } from '../../src/system/index.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-restore-schema-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const secretKey = randomBytes(32);
const clock = new ManualClock();
const dataDir = path.join(scratch, 'data');
const location = { databaseUrl: undefined, dataDir };
const live = sqliteFileIn(dataDir);
const signed = path.join(scratch, 'signed.sqlite');
const settings = { clock, secretKey, operator: 'ops' };

const TRIGGER = `create trigger redirect_sms after insert on token_messages begin
  update token_messages set destination_encrypted = '+61400000999' where id = new.id and channel = 'sms'; end`;

function edit(file: string, statement: string): void {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    db.exec(statement);
  } finally {
    db.close();
  }
}

/** A copy of the signed backup, `change` made to it; `keepSignature` copies its old .sig beside it. */
function tampered(name: string, change: string, keepSignature: boolean): string {
  const file = path.join(scratch, name);
  fs.copyFileSync(signed, file);
  edit(file, change);
  if (keepSignature) fs.copyFileSync(`${signed}.sig`, `${file}.sig`);
  return file;
}

const liveSchemaNames = () => {
  const db = new SqliteDatabase(live, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`select type || ' ' || name as n from sqlite_master where type in ('trigger', 'view')`).all() as Array<{ n: string }>).map((r) => r.n);
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const database = await openDatabase({ sqliteFile: live });
  await migrateToLatest(database);
  await database.close();
  const result = await backupDatabase(location, signed, settings);
  expect(result.signature).toBe(`${signed}.sig`);
  expect(fs.statSync(result.signature).mode & 0o777).toBe(0o600);
});

describe('erx restore and a planted trigger', () => {
  it('the attack: a trigger planted in a backup rewrites every SMS destination', () => {
    const file = tampered('demo.sqlite', TRIGGER, false);
    const db = new SqliteDatabase(file, { fileMustExist: true });
    try {
      db.prepare(`insert into token_messages (id, prescription_id, organization_id, channel, destination_encrypted, status, next_attempt_at, created_at)
        values ('m1', 'p1', 'o1', 'sms', '+61400000001', 'pending', '2026-01-01', '2026-01-01')`).run();
      expect(db.prepare(`select destination_encrypted from token_messages where id = 'm1'`).get()).toEqual({ destination_encrypted: '+61400000999' });
    } finally {
      db.close();
    }
  });

  it('is refused by the signature when the old signature is kept beside it', async () => {
    const file = tampered('trigger-signed.sqlite', TRIGGER, true);
    await expect(restoreDatabase(location, file, settings)).rejects.toThrow(/is refused: its signature does not match/);
    expect(liveSchemaNames()).toEqual([]);
  });

  it.each([
    ['a trigger', TRIGGER, /trigger redirect_sms is not erx's/],
    ['a view', 'create view every_patient as select * from patients', /view every_patient is not erx's/],
    ['an extra table', 'create table stash (body text)', /table stash is not erx's/],
    ['an index dropped', 'drop index audit_entries_organization_idx', /index audit_entries_organization_idx is missing/],
    ['a table altered', 'alter table patients add column note text', /table patients differs/],
  ])('is refused by the schema check, even accepted unsigned: %s', async (_what, change, message) => {
    const file = tampered(`unsigned-${randomBytes(3).toString('hex')}.sqlite`, change, false);
    await expect(restoreDatabase(location, file, { ...settings, acceptUnsigned: true })).rejects.toThrow(message);
    expect(liveSchemaNames()).toEqual([]);
    expect(fs.readdirSync(dataDir).filter((name) => /before-restore|restoring|reference/.test(name))).toEqual([]);
  });
});

describe('erx restore and signatures', () => {
  it('refuses a backup signed under another secret key', async () => {
    await expect(restoreDatabase(location, signed, { ...settings, secretKey: randomBytes(32) })).rejects.toThrow(/signature does not match/);
  });

  it('refuses an unsigned backup unless accepted, and records that it was unsigned', async () => {
    const file = path.join(scratch, 'older.sqlite');
    fs.copyFileSync(signed, file);
    await expect(restoreDatabase(location, file, settings)).rejects.toThrow(/carries no signature .*--accept-unsigned/);
    const result = await restoreDatabase(location, file, { ...settings, acceptUnsigned: true });
    expect(result.signed).toBe(false);
    const db = new SqliteDatabase(live, { readonly: true, fileMustExist: true });
    try {
      const entry = db.prepare(`select detail from audit_entries where action = 'admin.database_restore' order by seq desc limit 1`).get() as { detail: string };
      expect(JSON.parse(entry.detail)).toMatchObject({ signed: false });
    } finally {
      db.close();
    }
  });

  it('restores a genuine signed backup', async () => {
    const result = await restoreDatabase(location, signed, settings);
    expect(result).toMatchObject({ signed: true, migrationsApplied: [] });
    expect(liveSchemaNames()).toEqual([]);
  });
});
