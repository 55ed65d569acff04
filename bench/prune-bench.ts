// `npm run bench -- prune`: what a large prune costs the requests served beside it. The server
// (`erx serve`) runs on a fresh database into which the bench writes a backlog of old webhook
// history straight into the tables (200,000 events 100 days old, each with its delivery and one
// attempt: 600,000 rows). Two hot endpoints are probed (GET …/validate, a read; POST …/patients,
// a write) first with nothing else running, then while `erx prune` deletes the backlog in its
// batches of 1,000 rows. The probe is bounded by count and by the prune's end.
import { performance } from 'node:perf_hooks';
import { openDatabase, sqliteFileIn } from '../src/platform/db/database.ts';
import { countRows, insertWebhookHistory } from '../test/retention/retention-given.ts';
import { API_ENDPOINTS } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { withSeededServer } from './bench-credentials.ts';
import { runNodeCommand } from './bench-processes.ts';
import { resolveRequest, sendOnce, type ResolvedRequest } from './bench-requests.ts';

const BACKLOG_EVENTS = 200_000;
const QUICK_BACKLOG_EVENTS = 20_000;
/** Requests per probe at most; a probe beside the prune also ends when the prune does. */
const PROBE_CALLS = 4_000;
const PROBE_CONCURRENCY = 8;
const PRUNE_TIMEOUT_MS = 15 * 60_000;
// The write first: on SQLite it waits for the writer the prune holds, so its figures matter most.
const PROBED_ROWS = ['create patient', 'validate'];

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Probe {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Up to PROBE_CALLS requests from PROBE_CONCURRENCY workers, or fewer once `until` says stop. */
async function probe(baseUrl: string, request: ResolvedRequest, expected: number, until: () => boolean = () => false): Promise<Probe> {
  const times: number[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < PROBE_CALLS && !until()) {
      sent += 1;
      const started = performance.now();
      const response = await sendOnce(baseUrl, request);
      times.push(performance.now() - started);
      if (response.status !== expected) throw new Error(`${request.name} answered ${response.status}, expected ${expected}`);
    }
  };
  await Promise.all(Array.from({ length: PROBE_CONCURRENCY }, worker));
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round((times[Math.floor(q * (times.length - 1))] ?? 0) * 100) / 100;
  return { calls: times.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

async function seedBacklog(env: NodeJS.ProcessEnv, variables: BenchVariables, events: number): Promise<void> {
  const db = await openDatabase({ databaseUrl: env.DATABASE_URL || undefined, databaseSchema: env.ERX_DATABASE_SCHEMA || undefined, sqliteFile: sqliteFileIn(env.ERX_DATA_DIR!) });
  try {
    const started = performance.now();
    await insertWebhookHistory(db, events, { partnerId: variables.partner_id!, organizationId: variables.organization_id!, createdAt: new Date(Date.now() - 100 * 86_400_000) });
    log(`  backlog: ${(await countRows(db, 'webhook_events')).toLocaleString('en')} events written in ${Math.round(performance.now() - started)} ms`);
  } finally {
    await db.close();
  }
}

export async function runPruneBench(options: { quick: boolean }): Promise<string> {
  const events = options.quick ? QUICK_BACKLOG_EVENTS : BACKLOG_EVENTS;
  await withSeededServer(async (server, environment, variables) => {
    await seedBacklog(environment.env, variables, events);
    const rows = PROBED_ROWS.map((name) => {
      const endpoint = API_ENDPOINTS.find((row) => row.name === name)!;
      return { name, request: resolveRequest(endpoint, variables), expected: endpoint.expectStatus ?? 200 };
    });
    for (const row of rows) await probe(server.baseUrl, row.request, row.expected); // warm-up, unrecorded
    log(`bench prune: ${environment.database.dialect}, ${events.toLocaleString('en')} old events (${(events * 3).toLocaleString('en')} rows), ${PROBE_CONCURRENCY} connections`);
    log('| row | alone p50 ms | alone p99 ms | beside prune p50 ms | beside prune p99 ms | beside prune max ms | calls beside |');
    log('|---|---:|---:|---:|---:|---:|---:|');
    let pruneReport = '';
    for (const row of rows) {
      const alone = await probe(server.baseUrl, row.request, row.expected);
      const started = performance.now();
      let done = false;
      const pruning = runNodeCommand(['bin/erx.js', 'prune', '--json'], environment.env, PRUNE_TIMEOUT_MS).finally(() => (done = true));
      const beside = await probe(server.baseUrl, row.request, row.expected, () => done);
      const report = JSON.parse(await pruning) as { counts: Record<string, number>; batches: number };
      const seconds = (performance.now() - started) / 1000;
      log(`| ${row.name} | ${alone.p50Ms} | ${alone.p99Ms} | ${beside.p50Ms} | ${beside.p99Ms} | ${beside.maxMs} | ${beside.calls} |`);
      pruneReport += `  prune beside ${row.name}: ${report.counts.webhook_events} events, ${report.counts.webhook_deliveries} deliveries, ${report.counts.webhook_attempts} attempts in ${report.batches} batches, ${seconds.toFixed(1)} s\n`;
      if (row !== rows.at(-1)) await seedBacklog(environment.env, variables, events);
    }
    process.stdout.write(pruneReport);
  });
  return 'bench prune: done';
}
