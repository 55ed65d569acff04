// `npm run bench -- webhooks --profile`: a CPU profile of the bench's process (the dispatcher,
// as in `erx serve`) while it drains the backlog, through the inspector, written to
// .bench/webhooks-<dialect>.cpuprofile (open it in Chrome's DevTools) and summarized: self
// time by category, by dispatcher step where the stack tells it, and the top functions.
// A native frame (better-sqlite3's `all`, a socket's `writev`, an HMAC's `digest`) has no
// script of its own: its time goes to the category of the nearest caller that has one.
import fs from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface RunningProfile {
  /** Stops, writes the profile to `file`, and answers its summary (lines to print). */
  stop(file: string): Promise<string[]>;
}

export async function startCpuProfile(): Promise<RunningProfile> {
  const statements = timeSqliteStatements();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
      session.disconnect();
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, JSON.stringify(profile));
      return [...summarizeProfile(profile), ...statements.stop()];
    },
  };
}

const CATEGORIES: Array<[string, (url: string) => boolean]> = [
  ['undici', (url) => url.includes('/undici/')],
  ['node net/streams/timers', (url) => url.startsWith('node:')],
  ['SQLite driver (better-sqlite3, group commit)', (url) => url.includes('/better-sqlite3/') || url.includes('/platform/db/sqlite/')],
  ['pg driver', (url) => /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//.test(url)],
  ['Kysely', (url) => url.includes('/kysely/')],
  ['erx db layer (precompiled, unit of work)', (url) => url.includes('/src/platform/db/')],
  ['metrics (prom-client)', (url) => url.includes('/prom-client/') || url.includes('/src/platform/metrics/')],
  ['dispatcher (src/webhooks)', (url) => url.includes('/src/webhooks/')],
  ['bench', (url) => url.includes('/bench/')],
];

const SPECIAL: Record<string, string> = { '(idle)': 'idle', '(garbage collector)': 'GC', '(program)': 'V8/native (program)', '(root)': 'V8/native (program)' };

/** Steps of the dispatcher, told by a function on the sample's stack (lost across an await). */
const STEPS: Array<[string, RegExp]> = [
  ['claim', /^(claimDueDeliveries|claimDueDeliveriesWithBodies|claimEndpointDeliveries|findEventBodies|#claimFor|claimWhileWanted)/],
  ['sign', /^(signDelivery|deliveryAuthHeaders|signWebhookPayload|standardSignatureOf|signatureOf)$/],
  ['record outcomes', /^(writeOutcomes|recordAttemptOutcomes|recordAttemptsInOneStatement|updateDeliveryIfFenced|insertWebhookAttempt|outcomeRow)$/],
  ['request (send, answer)', /^(sendAttempt|readBeginning|sendClaimedAttempt)$/],
];

function categoryOf(url: string): string | undefined {
  // The statement timer below wraps better-sqlite3's calls: its callers tell the category.
  if (url.endsWith('/webhook-bench-profile.ts')) return undefined;
  return CATEGORIES.find(([, test]) => test(url))?.[0] ?? (url ? 'other JavaScript' : undefined);
}

export function summarizeProfile(profile: CpuProfile): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  for (const [id, us] of selfUs) if (!isProfilerItself(id, byId, parent)) total += us;
  const categories = new Map<string, number>();
  const steps = new Map<string, number>();
  const functions = new Map<string, { us: number; category: string }>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (isProfilerItself(id, byId, parent)) continue;
    const { functionName, url } = node.callFrame;
    let category = SPECIAL[functionName] ?? categoryOf(url);
    let step: string | undefined;
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)!.callFrame;
      category ??= categoryOf(frame.url);
      step ??= STEPS.find(([, pattern]) => pattern.test(frame.functionName.replace(/^.*\./, '')))?.[0];
    }
    category ??= 'V8/native (program)';
    add(categories, category, us);
    add(steps, step ?? (SPECIAL[functionName] ?? 'elsewhere (async continuation, driver, event loop)'), us);
    const name = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${node.callFrame.lineNumber + 1}` : '(native)'}`;
    const entry = functions.get(name) ?? { us: 0, category };
    entry.us += us;
    functions.set(name, entry);
  }
  const share = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return [
    `  profile: ${(total / 1e6).toFixed(2)} s sampled`,
    '  self time by category:',
    ...sorted(categories).map(([name, us]) => `    ${share(us)}  ${name}`),
    '  by dispatcher step (from the stack; what an await hides is "elsewhere"):',
    ...sorted(steps).map(([name, us]) => `    ${share(us)}  ${name}`),
    '  top functions (self):',
    ...[...functions]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, 30)
      .map(([name, { us, category }]) => `    ${share(us)}  ${name}  [${category}]`),
  ];
}

/** The inspector's own start (its first samples), not the process's work. */
function isProfilerItself(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): boolean {
  for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
    if (byId.get(current)!.callFrame.url === 'node:inspector') return true;
  }
  return false;
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

/**
 * The SQLite driver's native time, split by statement: better-sqlite3's run/all/get wrapped
 * with a timer while the profile runs (a profile only shows `all` and `run`). Nothing on PostgreSQL.
 */
function timeSqliteStatements(): { stop(): string[] } {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const probe = new Database(':memory:');
  const Statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const spent = new Map<string, { ms: number; calls: number }>();
  const originals = (['run', 'all', 'get'] as const).map((name) => [name, Statement[name]!] as const);
  for (const [name, original] of originals) {
    Statement[name] = function timed(this: { source: string }, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const key = this.source.replace(/\s+/g, ' ').slice(0, 90);
        const entry = spent.get(key) ?? { ms: 0, calls: 0 };
        entry.ms += performance.now() - started;
        entry.calls += 1;
        spent.set(key, entry);
      }
    };
  }
  return {
    stop() {
      for (const [name, original] of originals) Statement[name] = original;
      if (spent.size === 0) return [];
      return [
        '  SQLite statements (wall time inside better-sqlite3, calls):',
        ...[...spent]
          .sort((a, b) => b[1].ms - a[1].ms)
          .slice(0, 12)
          .map(([sql, { ms, calls }]) => `    ${ms.toFixed(0).padStart(6)} ms ${String(calls).padStart(7)}x  ${sql}`),
      ];
    },
  };
}
