// Production runs compiled JavaScript: `erx` (bin/erx.js) runs dist/, built from src/ by
// `npm run build`; nothing on that path imports TypeScript tooling (tsx, esbuild, typescript),
// which are devDependencies only; the portal's templates and stylesheet are found from dist/;
// and a dist/ that is missing or older than the code is refused with the command to run.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, runErx, spawnServer } from './cli-helpers.ts';

const TOOLING = ['tsx', 'esbuild', 'typescript'];
const DEV_TOOLING = /^(tsx|esbuild|typescript)(\/|$)/;
const HOOKS = `
  const tooling = ${JSON.stringify(TOOLING)};
  export async function resolve(specifier, context, next) {
    if (tooling.some((name) => specifier === name || specifier.startsWith(name + '/'))) throw new Error('TypeScript tooling imported at run time: ' + specifier);
    return next(specifier, context);
  }`;
/** Loaded before the CLI: any import of TypeScript tooling throws, so a start that needs it fails. */
const FORBID_DEV_TOOLING = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`)}`;

const cli = createCliEnvironment({ NODE_OPTIONS: `--import=${FORBID_DEV_TOOLING}` });
afterAll(() => cli.cleanup());

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

describe('the compiled CLI', () => {
  it('answers --help from dist/ with TypeScript tooling unimportable', async () => {
    const result = await runErx(cli.env, ['--help']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: erx');
    expect(result.stdout).toContain('prune');
  }, 30_000);

  it('runs under a hook that really refuses TypeScript tooling (the control: importing tsx fails)', async () => {
    const control = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', "await import('tsx/esm/api')"], { env: cli.env }, (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }));
    });
    expect(control.code).not.toBe(0);
    expect(control.stderr).toContain('TypeScript tooling imported at run time: tsx/esm/api');
  }, 30_000);

  it('serves /health and the portal (templates and stylesheet read from dist/) with TypeScript tooling unimportable', async () => {
    const server = await spawnServer(cli.env);
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      const css = await fetch(`${server.url}/assets/portal.css`);
      expect(css.status).toBe(200);
      expect(await css.text()).toBe(fs.readFileSync('src/portal/assets/portal.css', 'utf8'));
      const page = await fetch(`${server.url}/auth/sso?token=not-a-token`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/^<!doctype html>/i);
    } finally {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    expect(server.output()).not.toContain('TypeScript tooling');
  }, 60_000);

  it('has no import of TypeScript tooling in dist/ or bin/erx.js, and declares that tooling for development only', () => {
    const files = [...listFiles('dist'), 'bin/erx.js', 'scripts/dist-state.js'].filter((file) => file.endsWith('.js'));
    expect(files.length).toBeGreaterThan(100);
    const specifiers = files.flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/(?:from|import|require)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!));
    expect(specifiers.length).toBeGreaterThan(100);
    expect(specifiers.filter((specifier) => DEV_TOOLING.test(specifier))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8'));
    expect(Object.keys(manifest.dependencies).filter((name) => DEV_TOOLING.test(name))).toEqual([]);
    expect(Object.keys(manifest.devDependencies)).toEqual(expect.arrayContaining(['tsx', 'typescript']));
    // The lock file marks them (and everything only they need) dev: `npm ci --omit=dev` leaves them out.
    const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
    for (const name of ['tsx', 'esbuild', 'typescript']) expect(lock.packages[`node_modules/${name}`].dev, name).toBe(true);
  });
});

describe('a missing or out-of-date dist/', () => {
  /** A copy of the launcher and the freshness check, with a dist/ of its own. */
  function launcherTree(): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-dist-'));
    for (const file of ['bin/erx.js', 'scripts/dist-state.js']) {
      fs.mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
      fs.copyFileSync(file, path.join(root, file));
    }
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'console.log("source")\n');
    return root;
  }
  const launch = (root: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [path.join(root, 'bin/erx.js')], (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
    });
  const trees: string[] = [];
  afterAll(() => trees.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

  it('is refused with the command to run; a fresh one runs', async () => {
    const root = launcherTree();
    trees.push(root);
    expect(await launch(root)).toEqual({ code: 1, stdout: '', stderr: 'erx: dist/ is missing or incomplete (the compiled service); run `npm run build`\n' });

    fs.mkdirSync(path.join(root, 'dist', 'bundle'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'bundle', 'erx.js'), 'console.log("compiled")\n');
    fs.writeFileSync(path.join(root, 'dist', '.built'), '');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(root, 'dist', '.built'), past, past);
    const longAgo = new Date(Date.now() - 120_000);
    fs.utimesSync(path.join(root, 'src'), longAgo, longAgo);
    expect(await launch(root)).toEqual({ code: 1, stdout: '', stderr: 'erx: dist/ is older than src/main.ts; run `npm run build`\n' });

    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'dist', '.built'), later, later);
    expect(await launch(root)).toEqual({ code: 0, stdout: 'compiled\n', stderr: '' });
  }, 30_000);

  it('is refused when package-lock.json names other dependencies than the bundle was built with (by content, not time)', async () => {
    const root = launcherTree();
    trees.push(root);
    fs.mkdirSync(path.join(root, 'dist', 'bundle'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'bundle', 'erx.js'), 'console.log("compiled")\n');
    const lock = '{"lockfileVersion":3,"packages":{"node_modules/fastify":{"version":"5.12.8"}}}\n';
    fs.writeFileSync(path.join(root, 'package-lock.json'), lock);
    const hash = createHash('sha256').update(lock).digest('hex');
    fs.writeFileSync(path.join(root, 'dist', '.built'), `2026-11-29T00:00:00.000Z\nlock ${hash}\n`);
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'dist', '.built'), later, later);
    expect(await launch(root)).toEqual({ code: 0, stdout: 'compiled\n', stderr: '' });

    // The same content written again (as an install may) is still current; another version is not.
    fs.writeFileSync(path.join(root, 'package-lock.json'), lock);
    expect(await launch(root)).toEqual({ code: 0, stdout: 'compiled\n', stderr: '' });
    fs.writeFileSync(path.join(root, 'package-lock.json'), lock.replace('5.12.8', '5.12.9'));
    expect(await launch(root)).toEqual({ code: 1, stdout: '', stderr: 'erx: dist/ was built with other dependencies than package-lock.json names; run `npm run build`\n' });
  }, 30_000);
});
