// `npm run bench -- compare <ref>`: this checkout's server and the ref's (from a temporary git
// worktree) run side by side, each on its own fresh data, each set up through its own CLI and
// API. Each API row is then measured on both in alternating slices (measureAgainstBaseline with
// the ref's server in the baseline's place), so the machine's drift weighs on both alike.
import { API_ENDPOINTS, type BenchEndpoint } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { requestAccessToken, seedSandboxCredentials } from './bench-credentials.ts';
import { prepareApiEnvironment, type BenchDatabase } from './bench-environment.ts';
import type { CompareBenchOptions } from './bench-options.ts';
import { BenchUsageError } from './bench-options.ts';
import { findFreePort, startChildServer, type ChildServer } from './bench-processes.ts';
import { resolveRequest } from './bench-requests.ts';
import { BENCH_SETUP_STEPS } from './bench-setup.ts';
import { checkOutRef } from './compare-worktree.ts';
import { compareRow, type CompareReport, type SkippedRow } from './compare-report.ts';
import { measureAgainstBaseline, SampleMismatch, warmUpBaseline, type WarmBaseline } from './measure-endpoint.ts';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A row matches by its whole name or by the name before its parenthesis ("list users" for "list users (10,000)"). */
function matchesRow(endpoint: BenchEndpoint, name: string): boolean {
  const wanted = name.toLowerCase();
  const full = endpoint.name.toLowerCase();
  return full === wanted || full.replace(/\s*\(.*\)$/, '') === wanted;
}

/** The rows --rows names, in the table's order; all rows when it names none. An unknown name is a usage error. */
export function selectRows(endpoints: BenchEndpoint[], names: string[] | undefined): BenchEndpoint[] {
  if (names === undefined) return endpoints;
  const unknown = names.filter((name) => !endpoints.some((endpoint) => matchesRow(endpoint, name)));
  if (unknown.length > 0) {
    throw new BenchUsageError(`--rows: no row named ${unknown.map((name) => `"${name}"`).join(', ')}; the rows are ${endpoints.map((e) => `"${e.name}"`).join(', ')}`);
  }
  return endpoints.filter((endpoint) => names.some((name) => matchesRow(endpoint, name)));
}

interface Side {
  server: ChildServer;
  variables: BenchVariables;
  database: BenchDatabase;
  /** Setup steps this server could not do, each with why. */
  setupFailures: string[];
}

/**
 * The setup steps in order. For the current tree a failing step fails the run; for the ref a
 * failing step is noted and the rows needing what it would have made are skipped later
 * (their placeholders stay unfilled).
 */
async function runSetup(baseUrl: string, variables: BenchVariables, tolerate: boolean): Promise<{ variables: BenchVariables; failures: string[] }> {
  let all = variables;
  const failures: string[] = [];
  for (const step of BENCH_SETUP_STEPS) {
    try {
      all = { ...all, ...(await step(baseUrl, all)) };
    } catch (error) {
      if (!tolerate) throw error;
      failures.push(`${step.name}: ${messageOf(error)}`);
    }
  }
  return { variables: all, failures };
}

interface SideSpec {
  label: string;
  /** The checkout whose server and CLI run; undefined: this one. */
  cwd?: string;
  /** The ref's side: a setup step it cannot do is noted, not fatal. */
  tolerateSetupFailures: boolean;
}

/** Starts `erx serve` of the side's checkout on fresh data, seeds it through its own CLI, and runs the setup through its API. */
async function withSide<T>({ label, cwd, tolerateSetupFailures }: SideSpec, use: (side: Side) => Promise<T>): Promise<T> {
  const port = await findFreePort();
  const environment = await prepareApiEnvironment(port, { metrics: true });
  try {
    const server = await startChildServer({ name: `${label} erx server`, args: ['bin/erx.js', 'serve'], env: environment.env, port, readyPath: '/ready', cwd });
    try {
      const credentials = await seedSandboxCredentials(environment.env, cwd);
      const withToken = { ...credentials, access_token: await requestAccessToken(server.baseUrl, credentials) };
      log(`${label}: setup (${BENCH_SETUP_STEPS.length} steps)`);
      const setup = await runSetup(server.baseUrl, withToken, tolerateSetupFailures);
      for (const failure of setup.failures) log(`  setup step failed on ${label}, its rows will be skipped: ${failure}`);
      return await use({ server, variables: setup.variables, database: environment.database, setupFailures: setup.failures });
    } finally {
      await server.stop();
    }
  } finally {
    await environment.remove();
  }
}

/** The ref's side of a row, sampled and warmed up; or why the ref cannot serve it. */
async function warmRefRow(endpoint: BenchEndpoint, ref: Side, options: CompareBenchOptions): Promise<WarmBaseline | string> {
  let request;
  try {
    request = resolveRequest(endpoint, ref.variables);
  } catch (error) {
    return `its setup did not run there (${messageOf(error)})`;
  }
  try {
    return await warmUpBaseline(ref.server.baseUrl, request, options);
  } catch (error) {
    if (error instanceof SampleMismatch) return error.message;
    throw error;
  }
}

async function measureRows(current: Side, ref: Side, options: CompareBenchOptions): Promise<CompareReport> {
  const report: CompareReport = { rows: [], skipped: [] };
  for (const endpoint of selectRows(API_ENDPOINTS, options.rows)) {
    log(`  ${endpoint.name}: ${endpoint.method} ${endpoint.path} (${options.warmupSeconds} s warm-up each, ${options.durationSeconds} s measured on each server)`);
    const refRow = await warmRefRow(endpoint, ref, options);
    if (typeof refRow === 'string') {
      const skipped: SkippedRow = { name: endpoint.name, reason: refRow };
      log(`    skipped: ${options.ref} cannot serve it: ${refRow}`);
      report.skipped.push(skipped);
      continue;
    }
    const row = { baseUrl: current.server.baseUrl, request: resolveRequest(endpoint, current.variables) };
    const paired = await measureAgainstBaseline(row, refRow, options);
    const compared = compareRow({ ...paired.row, path: endpoint.path }, { ...paired.baseline, path: endpoint.path });
    log(`    current ${Math.round(compared.current.requestsPerSecond)} req/s, ${options.ref} ${Math.round(compared.ref.requestsPerSecond)} req/s: ${compared.ratio.toFixed(2)}`);
    report.rows.push(compared);
  }
  return report;
}

export interface CompareRun {
  report: CompareReport;
  refCommit: string;
  database: BenchDatabase;
  refSetupFailures: string[];
}

export async function measureComparison(options: CompareBenchOptions): Promise<CompareRun> {
  selectRows(API_ENDPOINTS, options.rows);
  const checkout = await checkOutRef(options.ref);
  log(`ref: ${options.ref} (${checkout.commit.slice(0, 12)}) checked out in ${checkout.root}`);
  try {
    return await withSide({ label: 'current', tolerateSetupFailures: false }, (current) =>
      withSide({ label: options.ref, cwd: checkout.root, tolerateSetupFailures: true }, async (ref) => ({
        report: await measureRows(current, ref, options),
        refCommit: checkout.commit,
        database: current.database,
        refSetupFailures: ref.setupFailures,
      })),
    );
  } finally {
    await checkout.remove();
  }
}
