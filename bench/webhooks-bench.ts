// `npm run bench -- webhooks`: webhook delivery on the database the run is given (SQLite in a
// fresh data directory, or a fresh PostgreSQL schema when DATABASE_URL is set), in one process
// as in `erx serve` (the events' source and the dispatcher share it), to a receiver in a
// process of its own. Measures, in order: commit-to-first-delivery latency at 500 events/s;
// the bare undici loop (the ceiling); the sustained rate draining a backlog; the bare loop again.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { buildFeatures } from '../src/features.ts';
import { assembleDeps, closeDeps } from '../src/runtime.ts';
import { startWebhookDispatcher } from '../src/webhooks/index.ts';
import { deferCleanup } from './bench-cleanup.ts';
import { prepareApiEnvironment } from './bench-environment.ts';
import type { WebhooksBenchOptions } from './bench-options.ts';
import { REPO_ROOT } from './bench-processes.ts';
import { startCpuProfile } from './webhook-bench-profile.ts';
import { measureBareLoop, measureCommitToDelivery, measureSustainedDeliveries, startBenchReceiver, type LatencyResult, type SustainedResult } from './webhook-bench-phases.ts';
import { createServiceEventSource } from './webhook-bench-source.ts';

/** The issue's targets. */
export const WEBHOOK_TARGETS = { p50Ms: 20, p99Ms: 100, sqliteDeliveriesPerSecond: 2_000, minBareLoopRatio: 0.5 };
const RECORD_FILE = path.join(REPO_ROOT, '.bench', 'last-webhooks-run.json');
/** Only read by the configuration: the bench opens no metrics listener. */
const METRICS_PORT = 9469;

export interface WebhooksBenchReport {
  database: 'sqlite' | 'postgres';
  inFlightPerEndpoint: number;
  latency: LatencyResult;
  sustained: SustainedResult;
  bareLoop: { before: number; after: number; mean: number; cpuUsPerRequest: number };
  /** Sustained deliveries per second over the bare loop's mean. */
  bareLoopRatio: number;
  missed: string[];
}

const log = (line: string) => process.stdout.write(`${line}\n`);

export async function runWebhooksBench(options: WebhooksBenchOptions): Promise<{ report: WebhooksBenchReport; file: string }> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg().map((load) => Math.round(load * 100) / 100);
  const environment = await prepareApiEnvironment(0);
  const receiver = await startBenchReceiver();
  // Metrics kept, as in `erx serve` with ERX_METRICS_PORT (their cost counts; nothing listens on the port here).
  const deps = await assembleDeps(loadConfig({ ...environment.env, ERX_METRICS_PORT: String(METRICS_PORT) }), { exposeMetrics: true });
  const forgetDeps = deferCleanup('the bench database connection', () => closeDeps(deps));
  try {
    const features = buildFeatures(deps);
    const { webhooks } = features;
    const concurrency = webhooks.settings.maxInFlightPerEndpoint;
    const source = await createServiceEventSource(features, receiver.url);
    log(`bench webhooks: ${environment.database.dialect}, ${concurrency} in flight per endpoint, receiver in its own process`);

    const dispatcher = startWebhookDispatcher(webhooks);
    log(`  latency: ${options.ratePerSecond} events/s, each its own transaction, ${options.warmupSeconds} s warm-up + ${options.latencySeconds} s ...`);
    const latency = await measureCommitToDelivery(source, receiver, { ratePerSecond: options.ratePerSecond, seconds: options.latencySeconds, warmupSeconds: options.warmupSeconds });
    await dispatcher.stop();

    const body = source.sampleBody();
    const before = await measureBareLoop(receiver.url, body, source.secret, concurrency, options.bareLoopSeconds);
    log(`  sustained: draining ${options.backlogEvents} events ...`);
    await source.preload(options.backlogEvents);
    const profile = options.profile ? await startCpuProfile() : undefined;
    const sustained = await measureSustainedDeliveries(webhooks, receiver, options.backlogEvents);
    if (profile) for (const line of await profile.stop(path.join(REPO_ROOT, '.bench', `webhooks-${environment.database.dialect}.cpuprofile`))) log(line);
    const after = await measureBareLoop(receiver.url, body, source.secret, concurrency, options.bareLoopSeconds);

    const mean = Math.round((before.perSecond + after.perSecond) / 2);
    const report: WebhooksBenchReport = {
      database: environment.database.dialect,
      inFlightPerEndpoint: concurrency,
      latency,
      sustained,
      bareLoop: { before: before.perSecond, after: after.perSecond, mean, cpuUsPerRequest: Math.round((before.cpuUsPerRequest + after.cpuUsPerRequest) / 2) },
      bareLoopRatio: Math.round((sustained.deliveriesPerSecond / mean) * 1000) / 1000,
      missed: [],
    };
    report.missed = missedWebhookTargets(report);
    log(formatWebhooksReport(report));
    const file = await writeRecord({ date: startedAt.toISOString(), node: process.version, machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAverageAtStart }, settings: options, ...report });
    return { report, file };
  } finally {
    forgetDeps();
    await closeDeps(deps);
    receiver.stop();
    await environment.remove();
  }
}

export function missedWebhookTargets(report: WebhooksBenchReport): string[] {
  const missed: string[] = [];
  if (report.latency.p50Ms > WEBHOOK_TARGETS.p50Ms) missed.push(`latency p50 ${report.latency.p50Ms} ms > ${WEBHOOK_TARGETS.p50Ms} ms`);
  if (report.latency.p99Ms > WEBHOOK_TARGETS.p99Ms) missed.push(`latency p99 ${report.latency.p99Ms} ms > ${WEBHOOK_TARGETS.p99Ms} ms`);
  if (report.database === 'sqlite' && report.sustained.deliveriesPerSecond < WEBHOOK_TARGETS.sqliteDeliveriesPerSecond) {
    missed.push(`${report.sustained.deliveriesPerSecond} deliveries/s < ${WEBHOOK_TARGETS.sqliteDeliveriesPerSecond} on SQLite`);
  }
  if (report.bareLoopRatio < WEBHOOK_TARGETS.minBareLoopRatio) missed.push(`${(report.bareLoopRatio * 100).toFixed(1)} % of the bare loop < ${WEBHOOK_TARGETS.minBareLoopRatio * 100} %`);
  return missed;
}

export function formatWebhooksReport(r: WebhooksBenchReport): string {
  return [
    '',
    `  commit to first delivery at ${r.latency.ratePerSecond}/s for ${r.latency.seconds} s (${r.latency.events} events): p50 ${r.latency.p50Ms} ms, p90 ${r.latency.p90Ms} ms, p99 ${r.latency.p99Ms} ms, max ${r.latency.maxMs} ms   (targets p50 <= ${WEBHOOK_TARGETS.p50Ms}, p99 <= ${WEBHOOK_TARGETS.p99Ms})`,
    `  sustained: ${r.sustained.deliveriesPerSecond} deliveries/s (${r.sustained.events} events drained in ${r.sustained.seconds} s)${r.database === 'sqlite' ? `   (target >= ${WEBHOOK_TARGETS.sqliteDeliveriesPerSecond})` : ''}`,
    `  bare undici loop, ${r.inFlightPerEndpoint} concurrent: ${r.bareLoop.before} then ${r.bareLoop.after} requests/s (mean ${r.bareLoop.mean})`,
    `  dispatcher / bare loop: ${(r.bareLoopRatio * 100).toFixed(1)} %   (target >= ${WEBHOOK_TARGETS.minBareLoopRatio * 100} %)`,
    `  CPU of this process: ${r.sustained.cpuUsPerDelivery} µs per delivery, ${r.bareLoop.cpuUsPerRequest} µs per bare request (${((100 * r.bareLoop.cpuUsPerRequest) / r.sustained.cpuUsPerDelivery).toFixed(1)} %)`,
    '',
  ].join('\n');
}

async function writeRecord(record: Record<string, unknown>): Promise<string> {
  await fs.mkdir(path.dirname(RECORD_FILE), { recursive: true });
  await fs.writeFile(RECORD_FILE, `${JSON.stringify(record, null, 2)}\n`);
  return path.relative(process.cwd(), RECORD_FILE) || RECORD_FILE;
}
