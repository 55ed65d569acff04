// `npm pack` of @erx/client: prepack compiles src/ to dist/ with tsc, the tarball holds the
// compiled JavaScript and its declarations (and no sources), and what it holds runs: extracted
// to a directory of its own, its entry point (from package.json's exports) gets a token and
// validates against a real erx, and verifies a delivery signed the way erx signs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ErxClientModule from '../../packages/erx-client/src/index.ts';
import { deliveryAuthHeaders, generateWebhookSecret } from '../../src/webhooks/webhook-signature.ts';
import { givenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '../../packages/erx-client');
let workDir: string;
let t: TestApp;

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-client-pack-'));
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

describe('npm pack of @erx/client', () => {
  it('builds dist/ and ships the compiled client with its types, which runs against erx', { timeout: 90_000 }, async () => {
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', workDir], { cwd: PACKAGE_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [packed] = JSON.parse(output) as PackResult[];
    const files = packed!.files.map((f) => f.path).sort();
    for (const needed of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts', 'dist/webhooks.js', 'dist/transport.js']) expect(files).toContain(needed);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);

    execFileSync('tar', ['-xzf', path.join(workDir, packed!.filename), '-C', workDir]);
    const root = path.join(workDir, 'package');
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: { '.': { import: string; types: string } }; dependencies?: object };
    expect(manifest.dependencies).toBeUndefined();
    expect(fs.existsSync(path.join(root, manifest.exports['.'].types))).toBe(true);
    const erx = (await import(pathToFileURL(path.join(root, manifest.exports['.'].import)).href)) as typeof ErxClientModule;

    const g = await givenIntegration(t);
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
    const client = erx.createErxClient({ baseUrl, ...g });
    await expect(client.validate()).resolves.toMatchObject({ success: true });
    const refused = await erx.createErxClient({ baseUrl, ...g, partnerSecret: 'wrong' }).validate().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(erx.ErxApiError);

    const secret = generateWebhookSecret();
    const body = JSON.stringify({ event_type: 'prescription.created', event_id: 'evt_packed', data: {} });
    const headers = deliveryAuthHeaders('evt_packed', body, [secret], Math.floor(Date.now() / 1000));
    expect(erx.verifyWebhook(body, headers, [secret]).scheme).toBe('standard-webhooks');
    expect(() => erx.verifyWebhook(body, headers, [generateWebhookSecret()])).toThrow(erx.WebhookVerificationError);
  });
});
