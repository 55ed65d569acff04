// `erx backup <file>`: a copy of the embedded SQLite database as of one moment, taken while the
// server keeps writing (sqlite-backup.ts says how), written beside the target and moved into
// place only once complete and checked, so a failed backup never leaves a partial file under
// the name asked for. PostgreSQL has its own tools (pg_dump), which this does not replace.
// The backup is signed (<file>.sig, backup-signature.ts) so restore can tell it was not changed
// since, and the backup is recorded in the audit trail (admin.database_backup).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createAuditTrail } from '../audit/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import { openDatabase, sqliteFileIn } from '../platform/db/database.ts';
import { copySqliteOnline, type CopyProgress } from '../platform/db/sqlite-backup.ts';
import { PRIVATE_FILE_MODE } from '../platform/private-files.ts';
import { signBackupFile } from './backup-signature.ts';

/** A backup or restore refused or failed for a reason the operator can act on; its message is one line. */
export class BackupError extends Error {
  override name = 'BackupError';
}

export type DatabaseLocation = Pick<Config, 'databaseUrl' | 'dataDir'>;

export interface BackupOptions {
  /** Replace `target` if it exists. */
  force?: boolean;
  onProgress?: (progress: CopyProgress) => void;
}

/** Who backs up, and the key the backup is signed with (the audit chain's too). */
export interface BackupSigner {
  secretKey: Buffer;
  operator: string;
  clock: Clock;
}

export interface BackupResult {
  file: string;
  database: string;
  bytes: number;
  pages: number;
  integrity: 'ok';
  /** The signature written beside the backup. */
  signature: string;
}

/** The embedded database file, or a refusal when the service uses PostgreSQL or has no database yet. */
export function embeddedDatabaseFile(location: DatabaseLocation, command: 'backup' | 'restore'): string {
  if (location.databaseUrl) {
    const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
    throw new BackupError(`erx ${command} works on the embedded SQLite database, and this configuration uses PostgreSQL (DATABASE_URL): use ${tool}`);
  }
  return path.resolve(sqliteFileIn(location.dataDir));
}

export async function backupDatabase(location: DatabaseLocation, target: string, signer: BackupSigner, options: BackupOptions = {}): Promise<BackupResult> {
  const source = embeddedDatabaseFile(location, 'backup');
  const file = path.resolve(target);
  if (!fs.existsSync(source)) throw new BackupError(`there is no database to back up at ${source} (ERX_DATA_DIR)`);
  if ([source, `${source}-wal`, `${source}-shm`, `${source}-journal`].includes(file)) {
    throw new BackupError(`${file} is the live database: choose a file outside it`);
  }
  refuseExistingTarget(file, options.force);
  const partial = `${file}.partial-${randomBytes(4).toString('hex')}`;
  createEmptyPrivateFile(partial, file);
  try {
    const copy = await copySqliteOnline(source, partial, options.onProgress);
    if (copy.integrity !== 'ok') throw new BackupError(`the copy failed SQLite's integrity check (${copy.integrity}); nothing was written to ${file}`);
    syncFile(partial);
    placeFile(partial, file, options.force);
    const signature = signBackupFile(signer.secretKey, file);
    await recordBackup(source, signer);
    return { file, database: `sqlite:${source}`, bytes: fs.statSync(file).size, pages: copy.pages, integrity: 'ok', signature };
  } finally {
    for (const leftover of [partial, `${partial}-journal`]) fs.rmSync(leftover, { force: true });
  }
}

/** admin.database_backup in the live database's trail, by the operator who ran it. */
async function recordBackup(source: string, signer: BackupSigner): Promise<void> {
  const database = await openDatabase({ sqliteFile: source });
  try {
    const trail = createAuditTrail({ database, clock: signer.clock, secretKey: signer.secretKey });
    await trail.noteAccess({ action: 'admin.database_backup', actor: { kind: 'operator', operator: signer.operator }, detail: { signed: true } });
  } finally {
    await database.close();
  }
}

function refuseExistingTarget(file: string, force: boolean | undefined): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return;
  }
  if (stat.isDirectory()) throw new BackupError(`${file} is a directory: give the backup's file name`);
  if (!force) throw new BackupError(`${file} exists: choose another name, or add --force to replace it`);
}

const WHY_NOT_WRITABLE: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of its path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
};

/** Creates `partial` (0600, like the data directory's files), or refuses naming `file`, which is what the operator asked for. */
function createEmptyPrivateFile(partial: string, file: string): void {
  try {
    fs.closeSync(fs.openSync(partial, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new BackupError(`cannot write ${file}: ${WHY_NOT_WRITABLE[code] ?? code}`);
  }
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Moves the finished copy to its name: replacing what is there only with --force (a hard link refuses to replace, atomically). */
function placeFile(partial: string, file: string, force: boolean | undefined): void {
  if (force) {
    fs.renameSync(partial, file);
    return;
  }
  try {
    fs.linkSync(partial, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new BackupError(`${file} appeared while backing up: choose another name, or add --force to replace it`);
    // A file system without hard links: checked, then renamed (not atomic, but nothing else writes there).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    refuseExistingTarget(file, false);
    fs.renameSync(partial, file);
  }
}
