// The other side of `npm run bench -- compare <ref>`: the ref checked out, detached, in a
// temporary git worktree that shares this checkout's node_modules, removed when the bench ends.
// Sharing node_modules is only sound when both commits declare the same dependencies.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { deferCleanup } from './bench-cleanup.ts';
import { REPO_ROOT } from './bench-processes.ts';

const run = promisify(execFile);

async function git(args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`git ${args.join(' ')} failed: ${stderr || (error instanceof Error ? error.message : String(error))}`);
  }
}

export interface RefCheckout {
  /** The full commit id the ref names. */
  commit: string;
  /** The worktree's root: run its `bin/erx.js` from here. */
  root: string;
  remove(): Promise<void>;
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/**
 * The packages `other` declares that this checkout does not declare at the same range (in any
 * dependency field). Packages only this checkout has, or one moved between fields, do not
 * matter: the shared node_modules holds everything the other commit imports, as it asked.
 */
export function unmetDependencies(current: string, other: string): string[] {
  const declared = (text: string) => {
    const manifest = JSON.parse(text) as Record<string, Record<string, string> | undefined>;
    return Object.assign({}, ...DEPENDENCY_FIELDS.map((field) => manifest[field] ?? {})) as Record<string, string>;
  };
  const here = declared(current);
  return Object.entries(declared(other))
    .filter(([name, range]) => here[name] !== range)
    .map(([name, range]) => `${name}@${range}`);
}

async function refuseOtherDependencies(commit: string, ref: string): Promise<void> {
  const current = await fs.readFile(path.join(REPO_ROOT, 'package.json'), 'utf8');
  const other = await git(['show', `${commit}:package.json`]);
  const unmet = unmetDependencies(current, other);
  if (unmet.length > 0) {
    throw new Error(
      `${ref}'s package.json declares ${unmet.join(', ')}, which this checkout does not; the compare mode shares this checkout's node_modules, so it cannot run that commit faithfully`,
    );
  }
}

/** Resolves the ref, checks its dependencies, and checks it out detached in a temporary directory. */
export async function checkOutRef(ref: string): Promise<RefCheckout> {
  let commit: string;
  try {
    commit = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`"${ref}" names no commit of this repository`);
  }
  await refuseOtherDependencies(commit, ref);
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'erx-bench-ref-'));
  const root = path.join(parent, 'tree');
  const removeAll = async () => {
    await git(['worktree', 'remove', '--force', root]).catch(() => undefined);
    await fs.rm(parent, { recursive: true, force: true });
    await git(['worktree', 'prune']);
  };
  const forget = deferCleanup(`the worktree of ${ref}`, removeAll);
  await git(['worktree', 'add', '--detach', root, commit]);
  await fs.symlink(await fs.realpath(path.join(REPO_ROOT, 'node_modules')), path.join(root, 'node_modules'));
  // A commit whose `erx` runs compiled code needs its own dist/ (older ones run TypeScript through tsx).
  const builder = path.join(root, 'scripts', 'build-dist.js');
  if (await fs.stat(builder).then(() => true, () => false)) await run(process.execPath, [builder], { cwd: root });
  return {
    commit,
    root,
    remove: async () => {
      forget();
      await removeAll();
    },
  };
}
