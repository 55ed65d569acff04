// The data directory holds patient data (the SQLite file and its -wal/-shm) and keys: only
// the service's own user may read it. A directory or file this creates is 0700 / 0600; the
// service's own files found with wider modes are narrowed at open (an existing directory is
// left as it is: it may be one the operator chose and shares, like a mounted volume).
import fs from 'node:fs';

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export function ensurePrivateDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/** Narrows `file` to 0600 if it exists with any group or other permission. */
export function restrictToOwner(file: string): void {
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((mode & 0o077) !== 0) fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** Creates `file` empty with mode 0600 unless it exists; narrows it otherwise. */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    restrictToOwner(file);
  }
}
