// The databases `erx restore` sets aside (erx.sqlite.before-restore-<yyyymmddThhmmssZ>[-n] in
// the data directory, with the -wal it may carry): each is a whole copy of the patient records as
// they were, so it is listed (`erx restore --list`) and deleted by `erx prune` once it is older
// than ERX_RETENTION_BEFORE_RESTORE_DAYS (issue 38 item 8), rather than kept unseen for ever.
// The time a copy was set aside is read from its name, which restore-service.ts gives it.
import fs from 'node:fs';
import path from 'node:path';
import { DAY_SECONDS } from '../platform/db/retention-step.ts';
import { embeddedDatabaseFile, type DatabaseLocation } from './backup-service.ts';

export interface BeforeRestoreCopy {
  file: string;
  /** When the restore set it aside (from its name). */
  set_aside_at: string;
  bytes: number;
  /** From when `erx prune` deletes it. */
  pruned_from: string;
}

/** What restore-service.ts's setAside names a copy: the stamp, then `-n` when two restores shared a second. */
const COPY_SUFFIX = /^\.before-restore-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z(?:-\d+)?$/;
/** SQLite's files beside a database, removed with it. */
const SIDECARS = ['-wal', '-shm', '-journal'] as const;

/** The copies in the data directory, oldest first; none on PostgreSQL (restore works on SQLite only). */
export function listBeforeRestoreCopies(location: DatabaseLocation, retentionDays: number): BeforeRestoreCopy[] {
  if (location.databaseUrl) return [];
  const live = embeddedDatabaseFile(location, 'restore');
  const dir = path.dirname(live);
  const base = path.basename(live);
  const copies: BeforeRestoreCopy[] = [];
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const match = name.startsWith(base) ? COPY_SUFFIX.exec(name.slice(base.length)) : null;
    if (!match) continue;
    const [, year, month, day, hour, minute, second] = match;
    const setAside = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
    const file = path.join(dir, name);
    const bytes = fs.statSync(file).size;
    copies.push({ file, set_aside_at: setAside.toISOString(), bytes, pruned_from: new Date(setAside.getTime() + retentionDays * DAY_SECONDS * 1000).toISOString() });
  }
  return copies.sort((a, b) => a.set_aside_at.localeCompare(b.set_aside_at) || a.file.localeCompare(b.file));
}

export interface BeforeRestorePrune {
  dry_run: boolean;
  retention_days: number;
  /** The copies deleted (or, for a dry run, that would be). */
  removed: string[];
}

/** Deletes the copies set aside more than `retentionDays` before `now`, each with its SQLite sidecar files. */
export function pruneBeforeRestoreCopies(location: DatabaseLocation, now: Date, retentionDays: number, options: { dryRun: boolean }): BeforeRestorePrune {
  const due = listBeforeRestoreCopies(location, retentionDays).filter((copy) => copy.pruned_from <= now.toISOString());
  if (!options.dryRun) {
    for (const copy of due) for (const file of [copy.file, ...SIDECARS.map((suffix) => `${copy.file}${suffix}`)]) fs.rmSync(file, { force: true });
  }
  return { dry_run: options.dryRun, retention_days: retentionDays, removed: due.map((copy) => copy.file) };
}
