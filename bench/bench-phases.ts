// A run: the bare Fastify baseline is started and warmed up, then the real API (`erx serve`)
// with sandbox credentials; each API row is then measured in slices that alternate with
// slices of its baseline. Both servers stay up, but only one is driven at a time, so they
// never share the CPU.
import { API_ENDPOINTS, BASELINE_ENDPOINTS, type BaselineKind, type BenchEndpoint } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { requestAccessToken, seedSandboxCredentials } from './bench-credentials.ts';
import { resolveRequest } from './bench-requests.ts';
import { runSetupSteps } from './bench-setup.ts';
import { prepareApiEnvironment, type BenchDatabase } from './bench-environment.ts';
import type { BenchOptions } from './bench-options.ts';
import { measureMetricsCost, type MetricsCost } from './metrics-cost-bench.ts';
import { findFreePort, startChildServer, type ChildServer } from './bench-processes.ts';
import type { EndpointMeasurement } from './bench-report.ts';
import {
  BenchFailure,
  measureAgainstBaseline,
  summarizeSlices,
  warmUpBaseline,
  type Measurement,
  type RawRun,
  type WarmBaseline,
} from './measure-endpoint.ts';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The row's stored check, through the operator CLI on the server's configuration. */
async function runStoredCheck(endpoint: BenchEndpoint, variables: BenchVariables, serverEnv: NodeJS.ProcessEnv): Promise<void> {
  if (!endpoint.storedCheck) return;
  try {
    log(`    stored check: ${await endpoint.storedCheck(serverEnv, variables)}`);
  } catch (error) {
    throw new BenchFailure(`${endpoint.name} stored check: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export interface RunMeasurements {
  database: BenchDatabase;
  results: EndpointMeasurement[];
  /** Each baseline over all its slices in the run. */
  baselines: Record<BaselineKind, Measurement>;
  /** The last phase: validate with metrics on against off. */
  metricsCost: MetricsCost;
}

type WarmBaselines = Record<BaselineKind, WarmBaseline>;

/** Starts the baseline server and checks and warms up both its routes; the server stays up until `use` ends. */
async function withBaselineServer<T>(options: BenchOptions, use: (baselines: WarmBaselines) => Promise<T>): Promise<T> {
  log('baseline: bare Fastify 5 (bench/baseline-server.ts)');
  const port = await findFreePort();
  const server = await startChildServer({
    name: 'baseline server',
    args: ['bin/run-ts.js', 'bench/baseline-server.ts'],
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) },
    port,
    readyPath: BASELINE_ENDPOINTS.GET.path,
  });
  try {
    const warm = async (kind: BaselineKind) => {
      log(`  ${BASELINE_ENDPOINTS[kind].name}: ${options.warmupSeconds} s warm-up (measured beside each row)`);
      return warmUpBaseline(server.baseUrl, resolveRequest(BASELINE_ENDPOINTS[kind], {}), options, server.pid);
    };
    return await use({ GET: await warm('GET'), POST: await warm('POST') });
  } finally {
    await server.stop();
  }
}

async function measureRows(
  server: ChildServer,
  baselines: WarmBaselines,
  variables: BenchVariables,
  options: BenchOptions,
  serverEnv: NodeJS.ProcessEnv,
): Promise<Omit<RunMeasurements, 'database' | 'metricsCost'>> {
  const results: EndpointMeasurement[] = [];
  const slicesOf: Record<BaselineKind, RawRun[]> = { GET: [], POST: [] };
  for (const endpoint of API_ENDPOINTS) {
    log(`  ${endpoint.name}: ${endpoint.method} ${endpoint.path} (${options.warmupSeconds} s warm-up, ${options.durationSeconds} s measured beside the ${endpoint.baseline} baseline)`);
    const row = { baseUrl: server.baseUrl, request: resolveRequest(endpoint, variables), pid: server.pid };
    const paired = await measureAgainstBaseline(row, baselines[endpoint.baseline], options);
    const measurement = { ...paired.row, path: endpoint.path };
    const statuses = Object.entries(measurement.statusCounts).map(([status, count]) => `${count} × ${status}`).join(', ');
    const { bodyBytes, dataLength } = measurement.sample;
    log(`    sample: ${bodyBytes} bytes of body${dataLength === undefined ? '' : `, data holds ${dataLength} entries`}`);
    log(`    ${Math.round(measurement.requestsPerSecond)} req/s, p99 ${measurement.latencyP99Ms} ms, ${measurement.cpuMicrosPerRequest ?? '?'} µs CPU a request, ${measurement.requests} requests: ${statuses}`);
    log(`    ${endpoint.baseline} baseline in between: ${Math.round(paired.baseline.requestsPerSecond)} req/s (${measurement.slices} ${measurement.slices === 1 ? 'slice' : 'slices'} each)`);
    await runStoredCheck(endpoint, variables, serverEnv);
    results.push({ endpoint, measurement, baseline: paired.baseline });
    slicesOf[endpoint.baseline].push(...paired.baselineSlices);
  }
  const overall = (kind: BaselineKind): Measurement => {
    if (slicesOf[kind].length === 0) throw new Error(`no row of API_ENDPOINTS is measured against the ${kind} baseline`);
    return summarizeSlices(baselines[kind].request, slicesOf[kind], baselines[kind].sample);
  };
  return { results, baselines: { GET: overall('GET'), POST: overall('POST') } };
}

export async function measureRun(options: BenchOptions): Promise<RunMeasurements> {
  return withBaselineServer(options, async (baselines) => {
    const port = await findFreePort();
    const environment = await prepareApiEnvironment(port, { metrics: true });
    log(`api: erx serve (${environment.database.dialect}${environment.database.schema ? `, schema ${environment.database.schema}` : ''})`);
    try {
      const server = await startChildServer({ name: 'erx server', args: ['bin/erx.js', 'serve'], env: environment.env, port, readyPath: '/ready' });
      try {
        const credentials = await seedSandboxCredentials(environment.env);
        const withToken = { ...credentials, access_token: await requestAccessToken(server.baseUrl, credentials) };
        const variables = await runSetupSteps(server.baseUrl, withToken);
        const rows = await measureRows(server, baselines, variables, options, environment.env);
        const metricsCost = await measureMetricsCost(server, environment.env, variables, options);
        return { database: environment.database, ...rows, metricsCost };
      } finally {
        await server.stop();
      }
    } finally {
      await environment.remove();
    }
  });
}
