// What metrics cost: `GET …/validate` (the cheapest authenticated route, where a per-request hook
// weighs most) on two `erx serve` processes of the same data: the bench's own, which runs with
// ERX_METRICS_PORT as production does, and a second one started without, in slices alternating
// between them (measureAgainstBaseline with the process without metrics in the baseline's place). The last phase of `npm run bench`, and alone as
// `npm run bench -- metrics`. Afterwards the metrics listener is scraped: its count of validate
// requests must cover every request measured, or the process was not measuring at all.
//
// Throughput alone cannot show a cost of a few percent on this shared 2-core machine: two
// servers *without* metrics, measured this way, came out at 1.05 and 2.19 of each other under a
// load average of 17-22. So the phase also reads each process's CPU time (/proc/<pid>/stat)
// around the measurement and divides it by the requests it answered; the target is judged on
// that CPU per request, which is what throughput is the inverse of on a CPU-bound server.
import { API_ENDPOINTS } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { withSeededServer } from './bench-credentials.ts';
import type { BenchOptions } from './bench-options.ts';
import { cpuSecondsOf, findFreePort, startChildServer, type ChildServer } from './bench-processes.ts';
import { formatLatency } from './bench-report.ts';
import { resolveRequest } from './bench-requests.ts';
import { BenchFailure, measureAgainstBaseline, warmUpBaseline, type Measurement } from './measure-endpoint.ts';

/** Metrics on may cost at most 5 % of validate's throughput. */
export const METRICS_COST_MIN_RATIO = 0.95;

const VALIDATE_ROUTE = '/v1/organizations/:organization_id/validate';

export interface MetricsCost {
  withMetrics: Measurement;
  withoutMetrics: Measurement;
  /** req/s with metrics over req/s without, in the same slices' time (noisy on a busy machine). */
  ratio: number;
  /** Process CPU time per answered request, in µs, over the measurement. */
  cpuMicrosPerRequest: { withMetrics: number; withoutMetrics: number };
  /** CPU per request without metrics over with: the throughput a CPU-bound server keeps. Judged against the target. */
  cpuRatio: number;
  /** Validate requests the metrics listener had counted when the measurement ended. */
  countedByMetrics: number;
  pass: boolean;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** How many 200s of validate the listener counted. */
async function countedValidateRequests(metricsUrl: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('http_server_request_duration_seconds_count{') && l.includes(`http_route="${VALIDATE_ROUTE}"`) && l.includes('http_response_status_code="200"'));
  if (!line) throw new BenchFailure(`the metrics listener at ${metricsUrl} counted no validate request:\n${text.slice(0, 500)}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * Starts a second server on `withMetrics`'s data without ERX_METRICS_PORT, measures validate on
 * both in alternating slices, checks the listener's count, and stops the second server.
 * `env` is the environment `withMetrics` runs in (its ERX_METRICS_PORT names the listener).
 */
export async function measureMetricsCost(withMetrics: ChildServer, env: NodeJS.ProcessEnv, variables: BenchVariables, options: BenchOptions): Promise<MetricsCost> {
  const validate = API_ENDPOINTS.find((endpoint) => endpoint.name === 'validate');
  if (!validate) throw new Error('API_ENDPOINTS has no validate row');
  if (!env.ERX_METRICS_PORT) throw new Error('measureMetricsCost needs the server with metrics (ERX_METRICS_PORT in its environment)');
  const port = await findFreePort();
  const metricsUrl = `http://127.0.0.1:${env.ERX_METRICS_PORT}`;
  log(`metrics cost: validate on the erx serve with ERX_METRICS_PORT=${env.ERX_METRICS_PORT}, beside a second one without (${options.warmupSeconds} s warm-up each, ${options.durationSeconds} s measured on each)`);
  const withoutMetrics = await startChildServer({
    name: 'erx server without metrics',
    args: ['bin/erx.js', 'serve'],
    env: { ...env, PORT: String(port), ERX_METRICS_PORT: '' },
    port,
    readyPath: '/ready',
  });
  try {
    const request = resolveRequest(validate, variables);
    const off = await warmUpBaseline(withoutMetrics.baseUrl, request, options);
    // Both warmed up before their CPU is read (a fresh process spends seconds compiling). From here
    // the process without metrics answers only the measured slices; the one with them also a
    // second sample and warm-up, which its listener counts as well.
    await warmUpBaseline(withMetrics.baseUrl, request, options);
    const cpuBefore = { off: cpuSecondsOf(withoutMetrics.pid), on: cpuSecondsOf(withMetrics.pid) };
    const countedBefore = await countedValidateRequests(metricsUrl).catch(() => 0);
    const paired = await measureAgainstBaseline({ baseUrl: withMetrics.baseUrl, request }, off, options);
    const cpuOff = cpuSecondsOf(withoutMetrics.pid) - cpuBefore.off;
    const cpuOn = cpuSecondsOf(withMetrics.pid) - cpuBefore.on;
    const countedByMetrics = await countedValidateRequests(metricsUrl);
    if (countedByMetrics - countedBefore < paired.row.requests) {
      throw new BenchFailure(`the metrics listener counted ${countedByMetrics - countedBefore} validate requests, fewer than the ${paired.row.requests} measured`);
    }
    const cpuMicrosPerRequest = {
      withMetrics: round((cpuOn / (countedByMetrics - countedBefore)) * 1e6, 2),
      withoutMetrics: round((cpuOff / paired.baseline.requests) * 1e6, 2),
    };
    const cpuRatio = round(cpuMicrosPerRequest.withoutMetrics / cpuMicrosPerRequest.withMetrics, 3);
    const ratio = round(paired.row.requestsPerSecond / paired.baseline.requestsPerSecond, 3);
    return { withMetrics: paired.row, withoutMetrics: paired.baseline, ratio, cpuMicrosPerRequest, cpuRatio, countedByMetrics, pass: cpuRatio >= METRICS_COST_MIN_RATIO };
  } finally {
    await withoutMetrics.stop();
  }
}

export function formatMetricsCost(cost: MetricsCost): string {
  const side = (label: string, m: Measurement, cpu: number) =>
    `  validate ${label}: ${Math.round(m.requestsPerSecond)} req/s, p50 ${formatLatency(m.latencyP50Ms)} ms, p99 ${formatLatency(m.latencyP99Ms)} ms (${m.slices} slices), ${cpu} µs CPU per request`;
  return [
    'metrics cost (same data, alternating slices):',
    side('without metrics', cost.withoutMetrics, cost.cpuMicrosPerRequest.withoutMetrics),
    side('with metrics   ', cost.withMetrics, cost.cpuMicrosPerRequest.withMetrics),
    `  req/s with ÷ without: ${cost.ratio.toFixed(3)}; CPU per request without ÷ with: ${cost.cpuRatio.toFixed(3)} (target >= ${METRICS_COST_MIN_RATIO}: ${cost.pass ? 'PASS' : 'FAIL'})`,
  ].join('\n');
}

/** `npm run bench -- metrics`: only this phase, on fresh data (a seed and a token, no other setup). */
export function runMetricsCostBench(options: BenchOptions): Promise<MetricsCost> {
  return withSeededServer((server, environment, variables) => measureMetricsCost(server, environment.env, variables, options), { metrics: true });
}
