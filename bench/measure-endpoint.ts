// One measurement: autocannon drives one request for a warm-up, then for the measured
// duration, and every response of both must be 2xx, or the bench fails.
import autocannon from 'autocannon';
import type { BenchOptions } from './bench-options.ts';
import { sendOnce, type ResolvedRequest } from './bench-endpoints.ts';

/**
 * Cap on requests per run, so a run is bounded by count as well as time. The 2-core bench
 * machine serves at most ~60k req/s (bare Fastify); 100k/s times the duration never cuts a
 * healthy run short.
 */
const MAX_REQUESTS_PER_SECOND = 100_000;
/** Seconds before a request with no answer counts as a timeout (an error). */
const REQUEST_TIMEOUT_SECONDS = 10;

export interface Measurement {
  name: string;
  method: string;
  path: string;
  /** Mean of the per-second request counts. */
  requestsPerSecond: number;
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
}

export class BenchFailure extends Error {
  override name = 'BenchFailure';
}

function runAutocannon(baseUrl: string, request: ResolvedRequest, seconds: number, connections: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${baseUrl}${request.path}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        connections,
        duration: seconds,
        maxOverallRequests: MAX_REQUESTS_PER_SECOND * seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result)),
    );
  });
}

function describeStatuses(result: autocannon.Result): string {
  const stats = result.statusCodeStats ?? {};
  return Object.entries(stats)
    .map(([status, { count }]) => `${status}×${count ?? 0}`)
    .join(', ');
}

/** Throws a BenchFailure naming the statuses seen and what one request answers now. */
async function assertAll2xx(baseUrl: string, request: ResolvedRequest, result: autocannon.Result, phase: string): Promise<void> {
  if (result.non2xx === 0 && result.errors === 0 && result['2xx'] > 0) return;
  let sample: string;
  try {
    const { status, text } = await sendOnce(baseUrl, request);
    sample = `one request now answers ${status} ${text.slice(0, 300)}`;
  } catch (error) {
    sample = `one request now fails: ${error instanceof Error ? error.message : String(error)}`;
  }
  throw new BenchFailure(
    `${request.name} (${request.method} ${request.path}) ${phase}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx ` +
      `[${describeStatuses(result)}], ${result.errors} errors (${result.timeouts} timeouts); ${sample}`,
  );
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export async function measureEndpoint(baseUrl: string, request: ResolvedRequest, options: BenchOptions): Promise<Measurement> {
  const warmup = await runAutocannon(baseUrl, request, options.warmupSeconds, options.connections);
  await assertAll2xx(baseUrl, request, warmup, 'during warm-up');
  const result = await runAutocannon(baseUrl, request, options.durationSeconds, options.connections);
  await assertAll2xx(baseUrl, request, result, 'during measurement');
  return {
    name: request.name,
    method: request.method,
    path: request.path,
    requestsPerSecond: round(result.requests.mean, 1),
    latencyMeanMs: round(result.latency.mean, 2),
    latencyP50Ms: round(result.latency.p50, 2),
    latencyP99Ms: round(result.latency.p99, 2),
    requests: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
  };
}
