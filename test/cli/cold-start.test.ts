// What a start needs and no more (issue 42 item 4): `erx --version` answers before anything is
// loaded or checked, `erx serve` on a fresh data directory answers /livez, and the bundle that
// every command loads leaves the libraries of a few commands (PostgreSQL, webhook HTTP, mail, HI SOAP,
// WebAuthn, PDF, traces) to chunks loaded where they are used. How fast: `npm run bench -- cold-start`.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, ERX_BIN, runErx, spawnServer } from './cli-helpers.ts';

const VERSION = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;
const BUNDLE = path.resolve('dist/bundle');

/** Packages only some commands or requests use: none may be in the bundle's entry or the chunks it imports statically. */
const LOADED_WHEN_USED = ['pg', 'undici', 'nodemailer', '@simplewebauthn/server', 'node-forge', 'xml-crypto', 'pdf-lib', 'bwip-js', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http'];

const trees: string[] = [];
const cli = createCliEnvironment();
afterAll(async () => {
  await cli.cleanup();
  for (const root of trees) fs.rmSync(root, { recursive: true, force: true });
});

/** The entry file and every chunk it imports statically, transitively: what any command loads. */
function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"(\.\/[^"]+)";?$/gms)) staticallyLoaded(path.join(path.dirname(file), match[1]!), seen);
  for (const match of text.matchAll(/^import\s*"(\.\/[^"]+)";?$/gm)) staticallyLoaded(path.join(path.dirname(file), match[1]!), seen);
  return seen;
}

/** The packages a bundle file carries, from the `// node_modules/<package>/…` line esbuild writes above each module. */
function packagesIn(file: string): Set<string> {
  const names = [...fs.readFileSync(file, 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((match) => match[1]!);
  return new Set(names);
}

describe('erx --version', () => {
  it('prints the version of package.json and exits 0, as --version and as -V', async () => {
    for (const flag of ['--version', '-V']) {
      expect(await runErx(cli.env, [flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('answers without dist/ at all: nothing is loaded or checked before it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-version-'));
    trees.push(root);
    for (const file of ['bin/erx.js', 'scripts/dist-state.js', 'package.json']) {
      fs.mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
      fs.copyFileSync(file, path.join(root, file));
    }
    const launch = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [path.join(root, 'bin/erx.js'), ...args], (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
      });
    expect(await launch(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    // The control: any other command in the same tree needs dist/ and says so.
    expect(await launch(['--help'])).toEqual({ code: 1, stdout: '', stderr: 'erx: dist/ is missing or incomplete (the compiled service); run `npm run build`\n' });
  });
});

describe('erx serve on a fresh data directory', () => {
  it('generates its keys, migrates, and answers /livez 200', async () => {
    const fresh = createCliEnvironment({ ERX_MODE: 'sandbox' });
    expect(fs.readdirSync(fresh.env.ERX_DATA_DIR!)).toEqual([]);
    const server = await spawnServer(fresh.env);
    try {
      const response = await fetch(`${server.url}/livez`);
      expect(response.status).toBe(200);
      expect(fs.readdirSync(fresh.env.ERX_DATA_DIR!)).toEqual(expect.arrayContaining(['jwt-signing-key.pem', 'secret.key']));
    } finally {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
      await fresh.cleanup();
    }
  }, 60_000);
});

describe('the bundle every command loads', () => {
  it('is what bin/erx.js runs', () => {
    expect(fs.readFileSync(ERX_BIN, 'utf8')).toContain("import('../dist/bundle/erx.js')");
  });

  it('carries none of the libraries loaded where they are used; they are in chunks of their own', () => {
    const loaded = staticallyLoaded(path.join(BUNDLE, 'erx.js'));
    expect(loaded.size).toBeGreaterThan(1);
    const carried = new Set([...loaded].flatMap((file) => [...packagesIn(file)]));
    // The control: the bundle does carry what every start needs.
    expect([...carried]).toEqual(expect.arrayContaining(['fastify', 'kysely', 'commander']));
    expect(LOADED_WHEN_USED.filter((name) => carried.has(name))).toEqual([]);
    const everywhere = new Set(fs.readdirSync(BUNDLE).flatMap((file) => [...packagesIn(path.join(BUNDLE, file))]));
    expect(LOADED_WHEN_USED.filter((name) => !everywhere.has(name))).toEqual([]);
  });

  it('imports the docs page (@fastify/swagger-ui, left outside the bundle) only when the page is first asked for', () => {
    const loaded = [...staticallyLoaded(path.join(BUNDLE, 'erx.js'))].map((file) => fs.readFileSync(file, 'utf8'));
    expect(loaded.filter((text) => /^import[^;]*?from\s*"@fastify\/swagger-ui"/m.test(text))).toEqual([]);
    // The control: the bundle does import it, lazily.
    expect(loaded.some((text) => text.includes('await import("@fastify/swagger-ui")'))).toBe(true);
  });
});
