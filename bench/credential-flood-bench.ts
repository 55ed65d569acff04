// `npm run bench -- credential-flood`: what failed token calls cost the server that answers
// them. `erx serve` runs with its rate limiter on (in memory, a budget large enough for the
// probe) and trusting one proxy hop, so X-Forwarded-For can play many client addresses. Two
// floods of 20,000 failed POST /v1/token: ids of 7 KB of random text (refused before any
// counter), then random well-formed ids from as many addresses (each a counter of its own,
// up to the limiter's cap). Before and after each: the server's resident memory and the
// latency of GET …/validate, a valid caller's request; and each flood's rate (what a refusal
// costs the server, its audit entry included).
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { requestAccessToken, seedSandboxCredentials } from './bench-credentials.ts';
import { prepareApiEnvironment } from './bench-environment.ts';
import { findFreePort, startChildServer, type ChildServer } from './bench-processes.ts';

const FLOOD_CALLS = 20_000;
const FLOOD_CONCURRENCY = 20;
const PROBE_CALLS = 3_000;
const PROBE_CONCURRENCY = 10;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function residentMegabytes(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return Math.round(kilobytes / 1024);
}

/** `calls` requests from `concurrency` workers; each request's status counted. */
async function drive(calls: number, concurrency: number, send: (i: number) => Promise<number>): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const status = await send(next++);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

interface Probe {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

async function probeValidate(server: ChildServer, url: string, headers: Record<string, string>): Promise<Probe> {
  const times: number[] = [];
  const statuses = await drive(PROBE_CALLS, PROBE_CONCURRENCY, async () => {
    const started = performance.now();
    const response = await fetch(`${server.baseUrl}${url}`, { headers });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    return response.status;
  });
  if (statuses[200] !== PROBE_CALLS) throw new Error(`validate answered ${JSON.stringify(statuses)}`);
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]! * 100) / 100;
  return { meanMs: Math.round((times.reduce((a, b) => a + b, 0) / times.length) * 100) / 100, p50Ms: at(0.5), p99Ms: at(0.99) };
}

const FLOODS: Record<string, (i: number) => Record<string, string>> = {
  'random 7 KB ids': () => ({
    'x-partner-id': randomBytes(3584).toString('hex'),
    'x-organization-id': randomBytes(3584).toString('hex'),
    'x-user-id': randomBytes(16).toString('hex'),
  }),
  'random well-formed ids, one address each': (i) => ({
    'x-partner-id': `p-${randomBytes(8).toString('hex')}`,
    'x-organization-id': randomUUID(),
    'x-user-id': randomUUID(),
    'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  }),
};

async function flood(server: ChildServer, idsOf: (i: number) => Record<string, string>): Promise<{ statuses: Record<number, number>; perSecond: number }> {
  const started = performance.now();
  const statuses = await drive(FLOOD_CALLS, FLOOD_CONCURRENCY, async (i) => {
    const response = await fetch(`${server.baseUrl}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-partner-secret': 'wrong', 'x-organization-secret': 'wrong', ...idsOf(i) },
      body: '{"grantType":"client_credentials","scope":["create:patient"]}',
    });
    await response.arrayBuffer();
    return response.status;
  });
  const unexpected = Object.keys(statuses).filter((status) => status !== '401' && status !== '429');
  if (unexpected.length > 0) throw new Error(`a failed token call answered ${JSON.stringify(statuses)}`);
  return { statuses, perSecond: Math.round(FLOOD_CALLS / ((performance.now() - started) / 1000)) };
}

export async function runCredentialFloodBench(): Promise<string> {
  const port = await findFreePort();
  const environment = await prepareApiEnvironment(port);
  const env = { ...environment.env, ERX_RATE_LIMIT_MAX: '1000000', ERX_TRUST_PROXY: '1' };
  try {
    const server = await startChildServer({ name: 'erx server', args: ['bin/erx.js', 'serve'], env, port, readyPath: '/ready' });
    try {
      const credentials = await seedSandboxCredentials(env);
      const accessToken = await requestAccessToken(server.baseUrl, credentials);
      const url = `/v1/organizations/${credentials.organization_id}/validate`;
      const headers = { authorization: `Bearer ${accessToken}`, 'x-organization-secret': credentials.organization_secret! };
      await probeValidate(server, url, headers); // warm-up, unrecorded
      const row = async (phase: string) => {
        const probe = await probeValidate(server, url, headers);
        log(`| ${phase} | ${await residentMegabytes(server.pid)} | ${probe.meanMs} | ${probe.p50Ms} | ${probe.p99Ms} |`);
      };
      log('| after | RSS MB | validate mean ms | p50 ms | p99 ms |');
      log('|---|---:|---:|---:|---:|');
      await row('start (warmed up)');
      for (const [name, idsOf] of Object.entries(FLOODS)) {
        const { statuses, perSecond } = await flood(server, idsOf);
        const answered = Object.entries(statuses).map(([s, n]) => `${n} × ${s}`).join(', ');
        await row(`${FLOOD_CALLS.toLocaleString('en')} token calls, ${name} (${answered}; ${perSecond} calls/s)`);
      }
    } finally {
      await server.stop();
    }
  } finally {
    await environment.remove();
  }
  return 'bench credential-flood: done';
}
