// `npm run bench`: measures the API's endpoints against a bare Fastify baseline measured in
// the same run, beside each row, prints the table, writes .bench/last-run.json, and fails
// (exit 1) when a response was not 2xx or a target was missed. The machine has 2 cores, so
// the baseline and the API are never driven at the same time, each alone with autocannon.
// `npm run bench -- webhooks` is a separate mode: webhook delivery (bench/webhooks-bench.ts);
// `npm run bench -- compare <ref>` measures this checkout's server beside an older commit's;
// `cold-start` times the compiled server's start and `erx --version` (also the first rows of every
// run); `prune` probes requests beside a large prune.
// `npm run bench -- audit-list` times `erx audit list --patient` on a million audit entries.
// `npm run bench -- medicines` imports a full-size synthetic PBS schedule and times the medicine search.
import os from 'node:os';
import { runPendingCleanups } from './bench-cleanup.ts';
import {
  BENCH_USAGE,
  BenchUsageError,
  parseBenchCommand,
  type BenchCommand,
  type BenchOptions,
  type CompareBenchOptions,
  type WebhooksBenchOptions,
} from './bench-options.ts';
import { measureRun } from './bench-phases.ts';
import { killLiveChildrenNow, runNodeCommand } from './bench-processes.ts';
import { buildRunRecord, compareToBaselines, formatReportTable, missedTargets, writeRunRecord } from './bench-report.ts';
import { measureComparison } from './compare-phases.ts';
import { buildCompareRecord, formatCompareTable, writeCompareRecord } from './compare-report.ts';
import { formatColdStart, measureColdStart, runColdStartBench, type ColdStartRow } from './cold-start-bench.ts';
import { runAuditListBench } from './audit-list-bench.ts';
import { runMedicinesBench } from './medicines-bench.ts';
import { runCredentialFloodBench } from './credential-flood-bench.ts';
import { formatMetricsCost, METRICS_COST_MIN_RATIO, runMetricsCostBench, type MetricsCost } from './metrics-cost-bench.ts';
import { runPruneBench } from './prune-bench.ts';
import { runWebhooksBench } from './webhooks-bench.ts';

let finishing = false;

/** Ends the run once: one line, every cleanup, the exit code. Later calls are ignored. */
async function finish(code: number, line: string): Promise<void> {
  if (finishing) return;
  finishing = true;
  (code === 0 ? process.stdout : process.stderr).write(`${line}\n`);
  await runPendingCleanups();
  process.exit(code);
}

function installExitGuards(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (finishing) {
        // A second Ctrl-C while cleaning up: stop waiting.
        killLiveChildrenNow();
        process.exit(130);
      }
      void finish(130, `bench: interrupted by ${signal}; servers stopped, nothing recorded`);
    });
  }
  // Nothing async runs on 'exit': whatever is still alive is killed outright.
  process.on('exit', killLiveChildrenNow);
}

async function runBench(options: BenchOptions): Promise<void> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg().map((load) => Math.round(load * 100) / 100);
  process.stdout.write('bench: cold start first (erx serve on fresh data, erx --version)\n');
  const coldStart = await measureColdStart();
  process.stdout.write(`${formatColdStart(coldStart)}\n`);
  process.stdout.write(`bench: ${options.connections} connections, ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s per endpoint\n`);
  const run = await measureRun(options);
  const report = compareToBaselines(run.baselines, run.results);
  process.stdout.write(`\n${formatReportTable(report)}\n\n${formatMetricsCost(run.metricsCost)}\n\n${formatColdStart(coldStart)}\n\n`);
  const record = { ...buildRunRecord(report, { options, database: run.database, startedAt, loadAverageAtStart }), metricsCost: run.metricsCost, coldStart };
  const file = await writeRunRecord(record);
  const missed = missedTargets(report);
  const missedColdStart = [coldStart.serve, coldStart.version].filter((row) => !row.pass);
  if (missed.length > 0 || !run.metricsCost.pass || missedColdStart.length > 0) {
    const names = missed.map((r) => `${r.name} at ${(r.baselineRatio * 100).toFixed(1)}% of ${r.baseline} baseline (target ${(r.target!.minBaselineRatio * 100).toFixed(0)}%)`);
    if (!run.metricsCost.pass) names.push(describeMissedMetricsCost(run.metricsCost));
    names.push(...missedColdStart.map(describeMissedColdStart));
    await finish(1, `bench: FAIL, target missed: ${names.join('; ')} (recorded in ${file})`);
    return;
  }
  await finish(0, `bench: PASS, every response 2xx and every target met (recorded in ${file})`);
}

function describeMissedColdStart(row: ColdStartRow): string {
  return `${row.name} wall median ${row.wallMedianMs} ms (target < ${row.targetMs} ms; CPU median ${row.cpuMedianMs} ms)`;
}

function describeMissedMetricsCost(cost: MetricsCost): string {
  return `validate with metrics at ${(cost.cpuRatio * 100).toFixed(1)}% of the throughput without, by CPU per request (target ${(METRICS_COST_MIN_RATIO * 100).toFixed(0)}%)`;
}

/** `npm run bench -- metrics`: the metrics-cost phase alone; its figures on stdout, nothing recorded. */
async function runMetricsCost(options: BenchOptions): Promise<void> {
  process.stdout.write(`bench metrics: ${options.connections} connections, ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s on each server\n`);
  const cost = await runMetricsCostBench(options);
  process.stdout.write(`\n${formatMetricsCost(cost)}\n\n`);
  if (!cost.pass) await finish(1, `bench metrics: FAIL, ${describeMissedMetricsCost(cost)}`);
  else await finish(0, 'bench metrics: PASS, every response 2xx and the target met');
}

async function runWebhooks(options: WebhooksBenchOptions): Promise<void> {
  const { report, file } = await runWebhooksBench(options);
  if (report.missed.length > 0) {
    await finish(1, `bench webhooks: FAIL, target missed: ${report.missed.join('; ')} (recorded in ${file})`);
    return;
  }
  await finish(0, `bench webhooks: PASS, every event delivered and every target met (recorded in ${file})`);
}

/** Any failed response has already thrown a BenchFailure: a comparison that ends has no verdict but the figures. */
async function runCompare(options: CompareBenchOptions): Promise<void> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg().map((load) => Math.round(load * 100) / 100);
  process.stdout.write(`bench compare: ${options.connections} connections, ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s per row on each server\n`);
  const run = await measureComparison(options);
  process.stdout.write(`\n${formatCompareTable(run.report, options.ref)}\n\n`);
  const file = await writeCompareRecord(buildCompareRecord(run.report, { options, startedAt, loadAverageAtStart, ...run }));
  const skipped = run.report.skipped.length === 0 ? '' : `, ${run.report.skipped.length} skipped on ${options.ref}`;
  await finish(0, `bench compare: ${run.report.rows.length} rows compared${skipped}, every response as expected (recorded in ${file})`);
}

let command: BenchCommand | undefined;
try {
  command = parseBenchCommand(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof BenchUsageError)) throw error;
  process.stderr.write(`bench: ${error.message}\n${BENCH_USAGE}\n`);
  process.exit(2);
}
if (!command) {
  process.stdout.write(`${BENCH_USAGE}\n`);
  process.exit(0);
}

installExitGuards();
try {
  // Every mode runs the compiled `erx`: build dist/ first if the code is newer than it.
  await runNodeCommand(['scripts/build-dist.js', '--if-stale'], process.env, 300_000);
  if (command.mode === 'credential-flood') await finish(0, await runCredentialFloodBench());
  else if (command.mode === 'prune') await finish(0, await runPruneBench(command.options));
  else if (command.mode === 'cold-start') {
    const { line, passed } = await runColdStartBench();
    await finish(passed ? 0 : 1, line);
  } else if (command.mode === 'audit-list') await finish(0, await runAuditListBench(command.options.entries));
  else if (command.mode === 'medicines') {
    const { line, passed } = await runMedicinesBench(command.options.codes);
    await finish(passed ? 0 : 1, line);
  }
  else if (command.mode === 'compare') await runCompare(command.options);
  else if (command.mode === 'metrics') await runMetricsCost(command.options);
  else await (command.mode === 'webhooks' ? runWebhooks(command.options) : runBench(command.options));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  await finish(1, `bench: FAILED: ${message}`);
}
