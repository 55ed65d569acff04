// Whether dist/ (the compiled service that `erx` and `npm start` run) is there and at least as
// new as the code it was built from. Plain JavaScript: it runs before anything is compiled.
// "As new as" is by modification time, of files and of folders (a deleted file changes its
// folder's), against the stamp the build writes last; a checkout without src/ (only the
// compiled code shipped) has nothing to be older than.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
export const STAMP = path.join(DIST, '.built');
/** The bundled CLI (scripts/bundle-dist.js). */
export const ENTRY = path.join(DIST, 'bundle', 'erx.js');
/** What the output is built from; tests beside the code are not part of it. */
export const SOURCES = ['src', 'migrations', 'scripts/build-dist.js', 'scripts/bundle-dist.js'];
/**
 * The bundle carries the dependencies' code too: the build stamps the lock file's hash, and a
 * lock file whose content differs (an upgrade) makes dist/ stale. By content, not time: a
 * production stage that installs from the same lock file after copying dist/ in is current.
 */
export const LOCK_FILE = 'package-lock.json';

export function lockFileHash(root = ROOT) {
  try {
    return createHash('sha256').update(fs.readFileSync(path.join(root, LOCK_FILE))).digest('hex');
  } catch {
    return undefined;
  }
}

function newestIn(entry, newest) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return newest;
  }
  if (!stat.isDirectory() && entry.endsWith('.test.ts')) return newest;
  let latest = stat.mtimeMs > newest.mtimeMs ? { mtimeMs: stat.mtimeMs, file: entry } : newest;
  if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) latest = newestIn(path.join(entry, name), latest);
  return latest;
}

/** `{ ok: true }`, or `{ ok: false, problem }` saying what is missing or newer than the build. */
export function distState(root = ROOT) {
  const entry = path.join(root, path.relative(ROOT, ENTRY));
  const stamp = path.join(root, path.relative(ROOT, STAMP));
  if (!fs.existsSync(entry) || !fs.existsSync(stamp)) return { ok: false, problem: 'dist/ is missing or incomplete (the compiled service)' };
  const builtAt = fs.statSync(stamp).mtimeMs;
  const newest = SOURCES.reduce((latest, name) => newestIn(path.join(root, name), latest), { mtimeMs: 0, file: '' });
  if (newest.mtimeMs > builtAt) return { ok: false, problem: `dist/ is older than ${path.relative(root, newest.file)}` };
  const lock = lockFileHash(root);
  if (lock !== undefined && !fs.readFileSync(stamp, 'utf8').includes(`lock ${lock}`)) return { ok: false, problem: `dist/ was built with other dependencies than ${LOCK_FILE} names` };
  return { ok: true };
}
