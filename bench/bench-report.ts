// What a run reports: each endpoint against its baseline (GET routes against the GET
// baseline, POST against POST) as measured beside it, the targets checked, a table on stdout
// and a JSON record in .bench/last-run.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BaselineKind, BenchEndpoint } from './bench-endpoints.ts';
import type { BenchDatabase } from './bench-environment.ts';
import type { BenchOptions } from './bench-options.ts';
import { REPO_ROOT } from './bench-processes.ts';
import type { Measurement } from './measure-endpoint.ts';

export const LAST_RUN_FILE = path.join(REPO_ROOT, '.bench', 'last-run.json');

export interface TargetCheck {
  minBaselineRatio: number;
  pass: boolean;
}

export interface EndpointResult extends Measurement {
  baseline: BaselineKind;
  /** req/s of its baseline in the slices between the endpoint's. */
  baselineRequestsPerSecond: number;
  /** req/s of the endpoint divided by baselineRequestsPerSecond. */
  baselineRatio: number;
  /** CPU µs a request of its baseline in the slices between the row's (the row's own: cpuMicrosPerRequest). */
  baselineCpuMicrosPerRequest?: number;
  /** The baseline's CPU per request over the row's: the ratio as the cost of a request, which other load on the machine moves far less than req/s. */
  cpuRatio?: number;
  /** Bulk rows: items per second (req/s × items per request). */
  itemsPerSecond?: number;
  target?: TargetCheck;
}

/** A row as the run measured it (bench-phases.ts), the report's input. */
export interface EndpointMeasurement {
  endpoint: BenchEndpoint;
  measurement: Measurement;
  /** Its baseline, measured in the slices between the row's. */
  baseline: Measurement;
}

export interface RunReport {
  /** Each baseline over all its slices in the run. */
  baselines: Record<BaselineKind, Measurement>;
  endpoints: EndpointResult[];
}

export function compareToBaselines(baselines: Record<BaselineKind, Measurement>, measured: EndpointMeasurement[]): RunReport {
  const endpoints = measured.map(({ endpoint, measurement, baseline }): EndpointResult => {
    const baselineRatio = measurement.requestsPerSecond / baseline.requestsPerSecond;
    const result: EndpointResult = {
      ...measurement,
      baseline: endpoint.baseline,
      baselineRequestsPerSecond: baseline.requestsPerSecond,
      baselineRatio: Math.round(baselineRatio * 1000) / 1000,
    };
    if (measurement.cpuMicrosPerRequest && baseline.cpuMicrosPerRequest) {
      result.baselineCpuMicrosPerRequest = baseline.cpuMicrosPerRequest;
      result.cpuRatio = Math.round((baseline.cpuMicrosPerRequest / measurement.cpuMicrosPerRequest) * 1000) / 1000;
    }
    if (endpoint.itemsPerRequest !== undefined) result.itemsPerSecond = Math.round(measurement.requestsPerSecond * endpoint.itemsPerRequest);
    if (endpoint.minBaselineRatio !== undefined) {
      result.target = { minBaselineRatio: endpoint.minBaselineRatio, pass: baselineRatio >= endpoint.minBaselineRatio };
    }
    return result;
  });
  return { baselines, endpoints };
}

export function missedTargets(report: RunReport): EndpointResult[] {
  return report.endpoints.filter((endpoint) => endpoint.target && !endpoint.target.pass);
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/** autocannon's latency histogram counts whole milliseconds: 0 means under 1 ms. */
export function formatLatency(ms: number): string {
  return ms < 1 ? '<1' : ms.toString();
}

/** The sample response's body: bytes, or kB / MB (of 1,000) once it is large. */
function formatBytes(bytes: number): string {
  if (bytes < 10_000) return `${bytes} B`;
  if (bytes < 10_000_000) return `${(bytes / 1000).toFixed(0)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function describeTarget(result: EndpointResult): string {
  if (!result.target) return '';
  return `>= ${percent(result.target.minBaselineRatio)} ${result.target.pass ? 'PASS' : 'FAIL'}`;
}

export function formatReportTable(report: RunReport): string {
  const header = ['endpoint', 'method', 'path', 'req/s', 'p99 ms', 'CPU µs', 'body', 'vs baseline', 'baseline req/s', 'by CPU', 'target', 'items/s'];
  // The first seven columns are the same for a baseline and an endpoint; the comparison columns are the endpoint's.
  const measured = (m: Measurement) => [
    m.name,
    m.method,
    m.path,
    Math.round(m.requestsPerSecond).toString(),
    formatLatency(m.latencyP99Ms),
    m.cpuMicrosPerRequest === undefined ? '' : m.cpuMicrosPerRequest.toFixed(1),
    formatBytes(m.sample.bodyBytes),
  ];
  const baselineRows = Object.values(report.baselines).map((m) => [...measured(m), '', '', '', '', '']);
  const endpointRows = report.endpoints.map((r) => [
    ...measured(r),
    `${percent(r.baselineRatio)} of ${r.baseline}`,
    Math.round(r.baselineRequestsPerSecond).toString(),
    r.cpuRatio === undefined ? '' : percent(r.cpuRatio),
    describeTarget(r),
    r.itemsPerSecond === undefined ? '' : r.itemsPerSecond.toString(),
  ]);
  return formatColumns(header, [...baselineRows, ...endpointRows], new Set([3, 4, 5, 6, 8, 9, 11]));
}

/** A plain-text table: the header, a rule, the rows; the `numeric` columns (by index) right-aligned. */
export function formatColumns(header: string[], body: string[][], numeric: Set<number>): string {
  const rows = [header, ...body];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(format)].join('\n');
}

export function readGit(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export function describeMachine(loadAverageAtStart: number[]): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.release()}`,
    // Other work on the machine skews both sides; a high figure here explains a noisy run.
    loadAverageAtStart,
  };
}

export interface RunRecordContext {
  options: BenchOptions;
  database: BenchDatabase;
  startedAt: Date;
  /** os.loadavg() when the run started: 1, 5 and 15 minute averages. */
  loadAverageAtStart: number[];
}

export function buildRunRecord(report: RunReport, context: RunRecordContext): Record<string, unknown> {
  const status = readGit(['status', '--porcelain']);
  return {
    date: context.startedAt.toISOString(),
    commit: readGit(['rev-parse', '--short', 'HEAD']) ?? 'unknown',
    // With uncommitted changes the figures describe the working tree, not only the commit.
    uncommittedChanges: status === undefined ? null : status !== '',
    node: process.version,
    machine: describeMachine(context.loadAverageAtStart),
    latencyResolutionMs: 1,
    database: context.database,
    settings: context.options,
    baselines: report.baselines,
    endpoints: report.endpoints,
    targetsMet: missedTargets(report).length === 0,
  };
}

export async function writeRunRecord(record: Record<string, unknown>): Promise<string> {
  await fs.mkdir(path.dirname(LAST_RUN_FILE), { recursive: true });
  await fs.writeFile(LAST_RUN_FILE, `${JSON.stringify(record, null, 2)}\n`);
  return path.relative(process.cwd(), LAST_RUN_FILE) || LAST_RUN_FILE;
}
