// Dispatchers in child processes (`erx worker`, `erx serve`) beside a test process that records
// events into the same database through the webhooks service, as the prescriptions service
// will; and a deadline-bound wait for what a receiver must eventually have seen.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import { createOrganization, createPartner, enablePartnerForOrganization } from '../../src/onboarding/index.ts';
import type { Deps } from '../../src/deps.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import type { DeliveryStatus } from '../../src/platform/db/stored-values.ts';
import { createCliEnvironment, ERX_BIN, type CliEnvironment } from '../cli/cli-helpers.ts';
import { startReceiver, type Receiver, type Responder } from './webhook-receivers.ts';

export interface ChildDispatcher {
  child: ChildProcess;
  /** The dispatcher id it prints (`sent_by` of its attempts). */
  id: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `erx worker` and resolves once it says it is dispatching. */
export function spawnWorker(env: Record<string, string>): Promise<ChildDispatcher> {
  const child = spawn(process.execPath, [ERX_BIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`erx worker did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /erx worker (\S+) dispatching webhooks/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, id: match[1], output: () => output, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`erx worker exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** The test process's own view of the child's database: features, and no dispatcher. */
export interface EventSource {
  deps: Deps;
  features: Features;
  close(): Promise<void>;
}

export async function openEventSource(env: Record<string, string>): Promise<EventSource> {
  const deps = await assembleDeps(loadConfig(env));
  return { deps, features: buildFeatures(deps), close: () => closeDeps(deps) };
}

/** A partner with its endpoint at `url`, and an organization to attach its events to. */
export async function givenPartnerWithEndpoint(source: EventSource, partnerId: string, url: string): Promise<{ partnerId: string; organizationId: string; userId: string; secret: string }> {
  const partner = await createPartner(source.features.onboarding, { partnerId, webhookUrl: url });
  const organization = await createOrganization(source.features.onboarding, { name: `Clinic of ${partnerId}` });
  // As onboarding does: only an organization that enables the partner has its events delivered to it.
  await enablePartnerForOrganization(source.features.onboarding, { organizationId: organization.organization_id, partnerId });
  return { partnerId, organizationId: organization.organization_id, userId: 'b1c2d3e4-0000-4000-8000-000000000002', secret: partner.webhook_secret! };
}

/** Waits, polling every 50 ms, until `done()`; throws with `describe()` after the deadline. */
export async function waitUntil(done: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a test of dispatcher processes stands on: their environment, a receiver and the test's own event source. */
export interface ProcessBed {
  cli: CliEnvironment;
  receiver: Receiver;
  source: EventSource;
  /** Processes the test started: killed when the file ends. */
  children: Array<{ kill(signal: NodeJS.Signals): boolean }>;
}

/** Builds the bed before the file's tests (the CLI environment with `env` added) and takes it down after them. */
export function useProcessBed(env: Record<string, string>, respond: Responder): ProcessBed {
  const bed = { children: [] as ProcessBed['children'] } as ProcessBed;
  beforeAll(async () => {
    bed.cli = createCliEnvironment(env);
    bed.receiver = await startReceiver(respond);
    bed.source = await openEventSource(bed.cli.env);
  });
  afterAll(async () => {
    for (const child of bed.children) child.kill('SIGKILL');
    await bed.source?.close();
    await bed.receiver?.close();
    await bed.cli?.cleanup();
  });
  return bed;
}

/** How many deliveries are in this state, as the database has it now. */
export async function countDeliveries(source: EventSource, status: DeliveryStatus): Promise<number> {
  const row = await source.deps.database
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
