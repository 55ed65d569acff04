// `erx restore <file>`, with the server stopped: checks that the file is a sound SQLite database
// of erx (integrity_check, its migrations table, no migration this build does not know), keeps
// the database it replaces beside it (erx.sqlite.before-restore-<time>), puts the backup in its
// place (0600, like every file of the data directory) and applies the migrations it lacks.
// Then it appends an admin.database_restore entry to the restored chain naming the head it
// replaced and the head it put back, so a trail rolled back by a restore says so.
//
// Only erx's own database is put back (issue 38 item 7): the backup's signature (<file>.sig,
// backup-signature.ts) must match under the secret key, or the operator accepts an unsigned
// one (--accept-unsigned, recorded); and its sqlite_master must be exactly what erx's
// migrations make, so no trigger, view, table or index planted in a backup survives a restore.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createAuditTrail } from '../audit/index.ts';
import type { Clock } from '../platform/clock.ts';
import { openDatabase } from '../platform/db/database.ts';
import { MIGRATIONS, migrateToLatest } from '../platform/db/migrator.ts';
import { inspectSqliteFile, isSqliteFileUnused, readSqliteAuditHead, readSqliteSchema, type SqliteSchemaObject } from '../platform/db/sqlite-backup.ts';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE, restrictToOwner } from '../platform/private-files.ts';
import { BackupError, embeddedDatabaseFile, type DatabaseLocation } from './backup-service.ts';
import { checkBackupSignature, SIGNATURE_SUFFIX } from './backup-signature.ts';

export interface RestoreResult {
  database: string;
  restoredFrom: string;
  /** Where the database that was replaced now is; null when there was none. */
  keptAside: string | null;
  /** Migrations the backup lacked, applied after it was put in place. */
  migrationsApplied: string[];
  /** The audit chain's head before the restore (null: no database) and the head put back. */
  replacedHead: { seq: number; hash: string } | null;
  restoredHead: { seq: number; hash: string } | null;
  /** Whether the backup's signature matched (false: restored unsigned, as the operator accepted). */
  signed: boolean;
}

export interface RestoreOptions {
  clock: Clock;
  /** Keys the audit chain the restore entry is appended to. */
  secretKey: Buffer;
  /** The OS user running `erx restore`. */
  operator: string;
  /** Restore a backup that carries no signature (older backups); recorded in the restore's entry. */
  acceptUnsigned?: boolean;
}

export async function restoreDatabase(location: DatabaseLocation, backup: string, options: RestoreOptions): Promise<RestoreResult> {
  const { clock } = options;
  const live = embeddedDatabaseFile(location, 'restore');
  const source = path.resolve(backup);
  if (!fs.statSync(source, { throwIfNoEntry: false })?.isFile()) throw new BackupError(`there is no backup file at ${source}`);
  ensurePrivateDirectory(path.dirname(live));
  // Checked as a private copy in the data directory: the backup itself is never opened for writing.
  const staged = `${live}.restoring-${randomBytes(4).toString('hex')}`;
  try {
    fs.copyFileSync(source, staged, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(staged, PRIVATE_FILE_MODE);
    const migrations = checkIsErxDatabase(staged, source);
    const signed = checkSignature(options, source, staged);
    await checkSchemaIsErxs(staged, source, migrations, path.dirname(live));
    const restoredHead = readSqliteAuditHead(staged) ?? null;
    const keptAside = setAside(live, clock);
    const replacedHead = keptAside ? (readSqliteAuditHead(keptAside) ?? null) : null;
    fs.renameSync(staged, live);
    const database = await openDatabase({ sqliteFile: live });
    try {
      const { applied } = await migrateToLatest(database);
      const trail = createAuditTrail({ database, clock, secretKey: options.secretKey });
      await trail.noteAccess({ action: 'admin.database_restore', actor: { kind: 'operator', operator: options.operator }, detail: { replacedHead, restoredHead, signed } });
      return { database: `sqlite:${live}`, restoredFrom: source, keptAside, migrationsApplied: applied, replacedHead, restoredHead, signed };
    } finally {
      await database.close();
    }
  } finally {
    for (const leftover of [staged, `${staged}-journal`, `${staged}-wal`, `${staged}-shm`]) fs.rmSync(leftover, { force: true });
  }
}

/** The backup's migrations, in the order it applied them, once it is shown to be a sound database of erx. */
function checkIsErxDatabase(staged: string, source: string): string[] {
  let report: ReturnType<typeof inspectSqliteFile>;
  try {
    report = inspectSqliteFile(staged);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new BackupError(`${source} is not an SQLite database`);
    throw error;
  }
  if (report.integrity !== 'ok') throw new BackupError(`${source} fails SQLite's integrity check (${report.integrity.split('\n')[0]})`);
  if (!report.migrations?.length) throw new BackupError(`${source} is an SQLite database but not one of erx (it has no migrations table)`);
  const unknown = report.migrations.filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) throw new BackupError(`${source} comes from a newer erx: its migrations ${unknown.join(', ')} are unknown to this one`);
  return report.migrations;
}

function checkSignature(options: RestoreOptions, source: string, staged: string): boolean {
  const check = checkBackupSignature(options.secretKey, source, staged);
  if (check.state === 'invalid') throw new BackupError(`${source} is refused: ${check.why}`);
  if (check.state === 'valid') return true;
  if (!options.acceptUnsigned) {
    throw new BackupError(`${source} carries no signature (${source}${SIGNATURE_SUFFIX}): erx backup signs what it writes; restore an older or outside backup you trust with --accept-unsigned (recorded)`);
  }
  return false;
}

/**
 * Compares the staged copy's sqlite_master with that of a scratch database given the same
 * migrations in the same order (numbers merge in any order, and two migrations altering one
 * table leave its CREATE text in the order they ran). Any object more, less or different is refused.
 */
async function checkSchemaIsErxs(staged: string, source: string, migrations: readonly string[], dir: string): Promise<void> {
  const reference = path.join(dir, `erx.reference-${randomBytes(4).toString('hex')}.sqlite`);
  let expected: SqliteSchemaObject[];
  try {
    const database = await openDatabase({ sqliteFile: reference });
    try {
      for (const upTo of ascendingRuns(migrations)) await migrateToLatest(database, Object.fromEntries(upTo.map((name) => [name, MIGRATIONS[name]!])));
    } finally {
      await database.close();
    }
    expected = readSqliteSchema(reference);
  } finally {
    for (const leftover of [reference, `${reference}-journal`, `${reference}-wal`, `${reference}-shm`]) fs.rmSync(leftover, { force: true });
  }
  const keyOf = (o: SqliteSchemaObject) => `${o.type} ${o.name}`;
  const wanted = new Map(expected.map((o) => [keyOf(o), o]));
  const found = readSqliteSchema(staged);
  const problems = found.filter((o) => wanted.get(keyOf(o))?.sql !== o.sql || wanted.get(keyOf(o))?.tbl_name !== o.tbl_name).map((o) => (wanted.has(keyOf(o)) ? `${keyOf(o)} differs` : `${keyOf(o)} is not erx's`));
  const present = new Set(found.map(keyOf));
  problems.push(...expected.filter((o) => !present.has(keyOf(o))).map((o) => `${keyOf(o)} is missing`));
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join(', ') + (problems.length > 5 ? ` and ${problems.length - 5} more` : '');
    throw new BackupError(`${source} is refused: its schema is not what erx's migrations make (${shown})`);
  }
}

/** The migrations to apply run by run: each run a prefix of `order` that ends where names stop ascending. */
function ascendingRuns(order: readonly string[]): string[][] {
  const runs: string[][] = [];
  order.forEach((name, index) => {
    if (index === order.length - 1 || order[index + 1]! < name) runs.push(order.slice(0, index + 1));
  });
  return runs;
}

/** Moves the live database (if any) aside, refusing while any process has it open. */
function setAside(live: string, clock: Clock): string | null {
  if (!fs.existsSync(live)) return null;
  if (!isSqliteFileUnused(live)) {
    throw new BackupError(`the database ${live} is in use: stop erx serve (and any erx worker or command using it) before restoring`);
  }
  const stamp = clock.now().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  let aside = `${live}.before-restore-${stamp}`;
  for (let n = 2; fs.existsSync(aside); n += 1) aside = `${live}.before-restore-${stamp}-${n}`;
  fs.renameSync(live, aside);
  // The copy keeps the patient data it held: owner-only, whatever mode the live file had.
  restrictToOwner(aside);
  // The lock check's connection, the last one, checkpointed and removed the WAL; a -shm is only an index.
  if (fs.existsSync(`${live}-wal`)) {
    fs.renameSync(`${live}-wal`, `${aside}-wal`);
    restrictToOwner(`${aside}-wal`);
  }
  fs.rmSync(`${live}-shm`, { force: true });
  return aside;
}
