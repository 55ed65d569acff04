// The two phases of a run, one after the other so they never share the CPU: the bare
// Fastify baseline, then the real API (`erx serve`) with sandbox credentials.
import { API_ENDPOINTS, BASELINE_ENDPOINTS, type BaselineKind, type BenchEndpoint, type BenchVariables } from './bench-endpoints.ts';
import { requestAccessToken, seedSandboxCredentials } from './bench-credentials.ts';
import { openServerDatabase } from './bench-database.ts';
import { resolveRequest } from './bench-requests.ts';
import { runSetupSteps } from './bench-setup.ts';
import { prepareApiEnvironment, type BenchDatabase } from './bench-environment.ts';
import type { BenchOptions } from './bench-options.ts';
import { findFreePort, startChildServer, type ChildServer } from './bench-processes.ts';
import { BenchFailure, measureEndpoint, type Measurement } from './measure-endpoint.ts';

export interface EndpointMeasurement {
  endpoint: BenchEndpoint;
  measurement: Measurement;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The row's stored check, on a connection of the bench's own to the server's database. */
async function runStoredCheck(endpoint: BenchEndpoint, variables: BenchVariables, serverEnv: NodeJS.ProcessEnv | undefined): Promise<void> {
  if (!endpoint.storedCheck) return;
  if (!serverEnv) throw new Error(`${endpoint.name}: a stored check needs the server's database`);
  const database = await openServerDatabase(serverEnv);
  try {
    log(`    stored check: ${await endpoint.storedCheck(database.db, variables)}`);
  } catch (error) {
    throw new BenchFailure(`${endpoint.name} stored check: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await database.close();
  }
}

async function measureAll(
  server: ChildServer,
  endpoints: BenchEndpoint[],
  variables: BenchVariables,
  options: BenchOptions,
  serverEnv?: NodeJS.ProcessEnv,
): Promise<EndpointMeasurement[]> {
  const results: EndpointMeasurement[] = [];
  for (const endpoint of endpoints) {
    log(`  ${endpoint.name}: ${endpoint.method} ${endpoint.path} (${options.warmupSeconds} s warm-up, ${options.durationSeconds} s measured)`);
    const measured = await measureEndpoint(server.baseUrl, resolveRequest(endpoint, variables), options);
    const measurement = { ...measured, path: endpoint.path };
    const statuses = Object.entries(measurement.statusCounts).map(([status, count]) => `${count} × ${status}`).join(', ');
    const { bodyBytes, dataLength } = measurement.sample;
    log(`    sample: ${bodyBytes} bytes of body${dataLength === undefined ? '' : `, data holds ${dataLength} entries`}`);
    log(`    ${Math.round(measurement.requestsPerSecond)} req/s, p99 ${measurement.latencyP99Ms} ms, ${measurement.requests} requests: ${statuses}`);
    await runStoredCheck(endpoint, variables, serverEnv);
    results.push({ endpoint, measurement });
  }
  return results;
}

export async function measureBaselines(options: BenchOptions): Promise<Record<BaselineKind, Measurement>> {
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
    const [get, post] = await measureAll(server, [BASELINE_ENDPOINTS.GET, BASELINE_ENDPOINTS.POST], {}, options);
    return { GET: get!.measurement, POST: post!.measurement };
  } finally {
    await server.stop();
  }
}

export interface ApiRun {
  database: BenchDatabase;
  results: EndpointMeasurement[];
}

export async function measureApi(options: BenchOptions): Promise<ApiRun> {
  const port = await findFreePort();
  const environment = await prepareApiEnvironment(port);
  log(`api: erx serve (${environment.database.dialect}${environment.database.schema ? `, schema ${environment.database.schema}` : ''})`);
  try {
    const server = await startChildServer({ name: 'erx server', args: ['bin/erx.js', 'serve'], env: environment.env, port, readyPath: '/ready' });
    try {
      const credentials = await seedSandboxCredentials(environment.env);
      const withToken = { ...credentials, access_token: await requestAccessToken(server.baseUrl, credentials) };
      const variables = await runSetupSteps(server.baseUrl, withToken);
      return { database: environment.database, results: await measureAll(server, API_ENDPOINTS, variables, options, environment.env) };
    } finally {
      await server.stop();
    }
  } finally {
    await environment.remove();
  }
}
