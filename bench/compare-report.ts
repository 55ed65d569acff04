// What `npm run bench -- compare <ref>` reports: per API row, this checkout's server and the
// ref's as measured in alternating slices, and current ÷ ref; the rows the ref could not serve
// with why; a table on stdout and a JSON record in .bench/last-compare.json.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CompareBenchOptions } from './bench-options.ts';
import type { BenchDatabase } from './bench-environment.ts';
import { REPO_ROOT } from './bench-processes.ts';
import { describeMachine, formatColumns, formatLatency, readGit } from './bench-report.ts';
import type { Measurement } from './measure-endpoint.ts';

export const LAST_COMPARE_FILE = path.join(REPO_ROOT, '.bench', 'last-compare.json');

export interface ComparedRow {
  name: string;
  method: string;
  path: string;
  current: Measurement;
  ref: Measurement;
  /** req/s of the current server ÷ req/s of the ref's, in the same run's alternating slices. */
  ratio: number;
}

/** A row the ref's server was not measured on, and why (its setup step or sample request failed there). */
export interface SkippedRow {
  name: string;
  reason: string;
}

export interface CompareReport {
  rows: ComparedRow[];
  skipped: SkippedRow[];
}

export function compareRow(current: Measurement, ref: Measurement): ComparedRow {
  return {
    name: current.name,
    method: current.method,
    path: current.path,
    current,
    ref,
    ratio: Math.round((current.requestsPerSecond / ref.requestsPerSecond) * 1000) / 1000,
  };
}

export function formatCompareTable(report: CompareReport, refLabel: string): string {
  const header = ['endpoint', 'method', 'path', 'current req/s', 'current p99 ms', `${refLabel} req/s`, `${refLabel} p99 ms`, `current/${refLabel}`];
  const body = report.rows.map((row) => [
    row.name,
    row.method,
    row.path,
    Math.round(row.current.requestsPerSecond).toString(),
    formatLatency(row.current.latencyP99Ms),
    Math.round(row.ref.requestsPerSecond).toString(),
    formatLatency(row.ref.latencyP99Ms),
    row.ratio.toFixed(2),
  ]);
  const table = formatColumns(header, body, new Set([3, 4, 5, 6, 7]));
  const notes = report.skipped.map((row) => `skipped on ${refLabel}: ${row.name}: ${row.reason}`);
  return [table, ...notes].join('\n');
}

export interface CompareRecordContext {
  options: CompareBenchOptions;
  /** The full commit id the ref named. */
  refCommit: string;
  database: BenchDatabase;
  startedAt: Date;
  loadAverageAtStart: number[];
  /** Setup steps the ref's server could not do. */
  refSetupFailures: string[];
}

export function buildCompareRecord(report: CompareReport, context: CompareRecordContext): Record<string, unknown> {
  const status = readGit(['status', '--porcelain']);
  return {
    date: context.startedAt.toISOString(),
    current: { commit: readGit(['rev-parse', '--short', 'HEAD']) ?? 'unknown', uncommittedChanges: status === undefined ? null : status !== '' },
    ref: { name: context.options.ref, commit: context.refCommit },
    node: process.version,
    machine: describeMachine(context.loadAverageAtStart),
    latencyResolutionMs: 1,
    database: context.database,
    settings: context.options,
    refSetupFailures: context.refSetupFailures,
    rows: report.rows,
    skipped: report.skipped,
  };
}

export async function writeCompareRecord(record: Record<string, unknown>): Promise<string> {
  await fs.mkdir(path.dirname(LAST_COMPARE_FILE), { recursive: true });
  await fs.writeFile(LAST_COMPARE_FILE, `${JSON.stringify(record, null, 2)}\n`);
  return path.relative(process.cwd(), LAST_COMPARE_FILE) || LAST_COMPARE_FILE;
}
