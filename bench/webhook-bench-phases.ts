// The webhook bench's measurements: commit-to-first-delivery latency at a fixed event rate;
// the sustained delivery rate while a backlog drains; and the machine's ceiling, a bare undici
// loop posting the same signed bodies to the same receiver at the same concurrency.
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { Agent, request } from 'undici';
import { type WebhooksContext, startWebhookDispatcher } from '../src/webhooks/index.ts';
import { deferCleanup } from './bench-cleanup.ts';
import { REPO_ROOT } from './bench-processes.ts';
import type { ReceiverCount, ReceiverReport, ReceiverRequest } from './webhook-bench-receiver.ts';
import { wallNow, type BenchEventSource } from './webhook-bench-source.ts';

export interface BenchReceiver {
  url: string;
  reset(): Promise<void>;
  /** How many distinct events have arrived. */
  count(): Promise<number>;
  report(): Promise<ReceiverReport>;
  stop(): void;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const child: ChildProcess = fork(path.join(REPO_ROOT, 'bin/run-ts.js'), ['bench/webhook-bench-receiver.ts'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const forget = deferCleanup('the webhook receiver', () => void child.kill('SIGKILL'));
  const next = <T>(type: string) => new Promise<T>((resolve) => child.on('message', function on(m: { type: string }) {
    if (m.type !== type) return;
    child.off('message', on);
    resolve(m as T);
  }));
  const { port } = await next<{ port: number }>('ready');
  const ask = <T>(message: ReceiverRequest) => {
    const answer = next<T>(message.type);
    child.send(message);
    return answer;
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    reset: () => ask<void>({ type: 'reset' }),
    count: async () => (await ask<ReceiverCount>({ type: 'count' })).firstArrivals,
    report: () => ask<ReceiverReport>({ type: 'report' }),
    stop: () => {
      forget();
      child.kill('SIGKILL');
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export interface LatencyResult {
  ratePerSecond: number;
  seconds: number;
  events: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Records events at `ratePerSecond` (each its own transaction) and measures, after a warm-up, commit to first arrival. */
export async function measureCommitToDelivery(
  source: BenchEventSource,
  receiver: BenchReceiver,
  options: { ratePerSecond: number; seconds: number; warmupSeconds: number },
): Promise<LatencyResult> {
  await receiver.reset();
  const interval = 1000 / options.ratePerSecond;
  const total = Math.round((options.warmupSeconds + options.seconds) * options.ratePerSecond);
  const warmup = Math.round(options.warmupSeconds * options.ratePerSecond);
  const commits: Array<Promise<{ eventId: string; committedAt: number }>> = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + i * interval - performance.now();
    if (wait >= 1) await sleep(wait);
    commits.push(source.recordOne());
  }
  const committed = (await Promise.all(commits)).slice(warmup);
  const arrivals = await waitForFirstArrivals(receiver, total, 30_000);
  const latencies = committed.map(({ eventId, committedAt }) => arrivals.get(eventId)! - committedAt).sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    ratePerSecond: options.ratePerSecond,
    seconds: options.seconds,
    events: committed.length,
    p50Ms: round(percentile(latencies, 0.5)),
    p90Ms: round(percentile(latencies, 0.9)),
    p99Ms: round(percentile(latencies, 0.99)),
    maxMs: round(latencies.at(-1)!),
  };
}

async function waitForFirstArrivals(receiver: BenchReceiver, count: number, timeoutMs: number): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const arrived = await receiver.count();
    if (arrived >= count) return new Map((await receiver.report()).firstArrivals);
    if (Date.now() > deadline) throw new Error(`only ${arrived} of ${count} events arrived within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

export interface SustainedResult {
  events: number;
  /** Deliveries per second between the 10th and the 90th percentile of arrivals. */
  deliveriesPerSecond: number;
  seconds: number;
  /** CPU time (user + system) of this process per delivery while it drained, in µs: less swayed by other load than the rate. */
  cpuUsPerDelivery: number;
}

/** With `events` waiting in the outbox, starts a dispatcher and measures how fast it drains them. */
export async function measureSustainedDeliveries(webhooks: WebhooksContext, receiver: BenchReceiver, events: number): Promise<SustainedResult> {
  await receiver.reset();
  const started = wallNow();
  const cpu = process.cpuUsage();
  const dispatcher = startWebhookDispatcher(webhooks);
  try {
    await waitForFirstArrivals(receiver, events, 300_000);
  } finally {
    await dispatcher.stop();
  }
  const { user, system } = process.cpuUsage(cpu);
  const arrivals = (await receiver.report()).arrivals.sort((a, b) => a - b);
  const from = percentile(arrivals, 0.1);
  const to = percentile(arrivals, 0.9);
  return { events, deliveriesPerSecond: Math.round((0.8 * arrivals.length) / ((to - from) / 1000)), seconds: Math.round((arrivals.at(-1)! - started) / 100) / 10, cpuUsPerDelivery: Math.round((user + system) / events) };
}

/** `concurrency` loops, each posting a freshly signed body as soon as the last answer is read, for `seconds`. */
export async function measureBareLoop(url: string, body: string, secret: string, concurrency: number, seconds: number): Promise<{ perSecond: number; cpuUsPerRequest: number }> {
  const agent = new Agent();
  const deadline = performance.now() + seconds * 1000;
  let completed = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t = Math.floor(Date.now() / 1000);
      const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'Parchment-Webhooks/1.0', 'X-Webhook-Signature': signature },
        body,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`the receiver answered ${response.statusCode}`);
      completed += 1;
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  await agent.close();
  return { perSecond: Math.round(completed / elapsed), cpuUsPerRequest: Math.round((user + system) / completed) };
}
