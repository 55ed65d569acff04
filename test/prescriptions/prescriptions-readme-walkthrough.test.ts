// The prescriptions walk-through of docs/partners/prescriptions.md, run as a partner would: its shell block, unchanged
// but for the port, with bash, curl and jq against a fresh `npm start` (erx serve
// --seed-if-empty), the variables filled from what the start printed.
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_CI } from '../service-availability.ts';
import { createCliEnvironment, runErxJson, spawnServer } from '../cli/cli-helpers.ts';

const README_BASE_LINE = 'BASE=http://127.0.0.1:3000';

function walkThroughBlock(): string {
  const page = fs.readFileSync(new URL('../../docs/partners/prescriptions.md', import.meta.url), 'utf8');
  const section = page.split('\n## Walk-through from a fresh `npm start`\n')[1];
  const block = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/partners/prescriptions.md: no shell block under "Walk-through from a fresh `npm start`"');
  return block;
}

function missingTools(): string[] {
  return ['bash', 'curl', 'jq'].filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
}

function printed(output: string, label: string): string {
  const match = new RegExp(`${label}:\\s+(\\S+)`).exec(output);
  if (!match?.[1]) throw new Error(`"${label}" not printed:\n${output}`);
  return match[1];
}

function runBash(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-e', '-o', 'pipefail', '-c', script], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const missing = missingTools();
if (missing.length > 0 && IN_CI) throw new Error(`the prescriptions walk-through needs ${missing.join(', ')}, and CI must run it`);
if (missing.length > 0) console.warn(`skipping the prescriptions walk-through: ${missing.join(', ')} not installed`);

describe.skipIf(missing.length > 0)('the prescriptions walk-through (docs/partners/prescriptions.md)', () => {
  const cli = createCliEnvironment();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-readme-home-'));
  let server: ChildProcess | undefined;
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(home, { recursive: true, force: true });
    await cli.cleanup();
  });

  it('creates a patient, prescribes, lists, reads by SCID and ceases, leaving one event per change', async () => {
    const block = walkThroughBlock();
    expect(block).toContain(README_BASE_LINE);
    const started = await spawnServer(cli.env, ['--seed-if-empty']);
    server = started.child;
    const output = started.output();
    // One response per line: curl ends each body with a newline (the partner's terminal does not need it).
    fs.writeFileSync(path.join(home, '.curlrc'), 'write-out = "\\n"\n');
    const result = await runBash(block.replace(README_BASE_LINE, `BASE=${started.url}`), {
      PATH: process.env.PATH ?? '',
      HOME: home,
      PARTNER_ID: printed(output, 'partner_id'),
      PARTNER_SECRET: printed(output, 'partner_secret'),
      ORG_ID: printed(output, 'organization_id'),
      ORG_SECRET: printed(output, 'organization_secret'),
      USER_ID: printed(output, 'prescriber user_id'),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const [validated, listed, read, ceased, ...rest] = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(rest).toEqual([]);
    expect(validated).toMatchObject({ statusCode: 200, data: { validated: true } });
    expect(listed).toMatchObject({ statusCode: 200, message: 'Prescriptions retrieved successfully', pagination: { count: 1, hasNext: false, limit: 10, lastKey: null } });
    const [prescription] = listed.data.prescriptions;
    expect(prescription).toMatchObject({ status: 'Active', item_name: 'Amoxicillin', quantity: '20', delivery: { method: 'SMS', recipient_type: 'PATIENT', destination: '0412345678' } });
    expect(read).toMatchObject({ statusCode: 200, data: { prescription: { scid: prescription.scid, status: 'Active' } } });
    expect(ceased).toMatchObject({ statusCode: 200, message: 'Prescription ceased successfully', data: { scid: prescription.scid, status: 'Ceased' } });

    const events = await runErxJson<Array<{ event_type: string }>>(cli.env, ['webhooks', 'events']);
    expect(events.map((event) => event.event_type).sort()).toEqual(['prescription.ceased', 'prescription.created']);
  }, 120_000);
});
