// A crash between the PDS's acceptance and erx's commit leaves exactly one script at the PDS:
// an `erx worker` (ERX_SANDBOX_KILL_AFTER_PDS_SUBMIT=1) claims a Pending prescription's
// submission, the sandbox PDS accepts it, and the process is killed (SIGKILL) before erx
// commits. The prescription is still Pending; a second worker claims the job once the dead
// one's lease ended, submits the same unique id again, and the PDS answers with the same SCID:
// the prescription becomes Active with it, and the PDS holds one script for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERX_BIN } from '../cli/cli-helpers.ts';
import { givenClinic, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';
import { createTestApp, TEST_DATABASE_URL, type TestApp } from '../test-app.ts';
import { spawnWorker } from '../webhooks/webhook-processes.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-pds-crash-'));
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { ERX_PDS_WAIT_MS: '0' }, sqliteFile: path.join(dataDir, 'erx.sqlite') });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function workerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ERX_DATA_DIR: dataDir,
    ERX_SECRET_KEY: t.deps.secretKey.toString('base64'),
    ERX_PDS_TIMEOUT_MS: '100',
    LOG_LEVEL: 'silent',
    ...(TEST_DATABASE_URL && t.schema ? { DATABASE_URL: TEST_DATABASE_URL, ERX_DATABASE_SCHEMA: t.schema } : {}),
    ...extra,
  };
}

const scriptsAtPds = (uniqueId: string) => t.deps.database.selectFrom('pds_simulator_scripts').select('scid').where('unique_id', '=', uniqueId).execute();
const statusOf = (id: string) => t.deps.database.selectFrom('prescriptions').select(['status', 'scid']).where('id', '=', id).executeTakeFirstOrThrow();

it('a kill between the PDS accepting and erx committing leaves one script at the PDS, and the retry makes the prescription Active with its SCID', async () => {
  expect(fs.existsSync(ERX_BIN)).toBe(true);
  const c = await givenClinic(t);
  // Written Pending here; this process's first attempt finds the PDS unreachable, so the job waits for a runner.
  t.pds.failAlways('submit', 'unreachable');
  const pending = (await prescriptionsClient(t, c).prescribe()).json().data;
  await Promise.all([...t.features.prescriptions.pds.inFlight]);
  const id = pending.legal_metadata.prescription_id as string;
  expect(await statusOf(id)).toEqual({ status: 'Pending', scid: null });

  const doomed = await spawnWorker(workerEnv({ ERX_SANDBOX_KILL_AFTER_PDS_SUBMIT: '1' }));
  expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' });
  const [held, ...more] = await scriptsAtPds(id);
  expect(held).toBeDefined();
  expect(more).toEqual([]);
  expect(await statusOf(id)).toEqual({ status: 'Pending', scid: null });

  const survivor = await spawnWorker(workerEnv());
  try {
    const deadline = Date.now() + 30_000;
    while ((await statusOf(id)).status === 'Pending' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    survivor.child.kill('SIGTERM');
    await survivor.exited;
  }
  expect(await statusOf(id)).toEqual({ status: 'Active', scid: held!.scid });
  expect(await scriptsAtPds(id)).toEqual([{ scid: held!.scid }]);
}, 60_000);
