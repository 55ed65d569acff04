// One measurement: a sample request checked against the row's expectations, then autocannon
// drives the request for a warm-up and for the measured duration. Every response of both
// must be 2xx (or exactly the row's expected status), or the bench fails.
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import type { BenchOptions } from './bench-options.ts';
import { sendOnce, type ResolvedRequest } from './bench-requests.ts';

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
  /** Responses that passed: 2xx, or exactly the expected status when the row sets one. */
  requests: number;
  /** Responses per HTTP status, e.g. { "201": 15000 }. */
  statusCounts: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  /** The sample request sent before the warm-up. */
  sample: SampleResponse;
}

export class BenchFailure extends Error {
  override name = 'BenchFailure';
}

/** A fixed request is built once; a varying one rebuilds its body for every request sent. */
function requestOptions(request: ResolvedRequest): Pick<autocannon.Options, 'body' | 'requests'> {
  if (!request.varies) return { body: request.nextBody() };
  return {
    requests: [
      {
        setupRequest: (built) => {
          built.body = request.nextBody();
          return built;
        },
      },
    ],
  };
}

function runAutocannon(baseUrl: string, request: ResolvedRequest, seconds: number, connections: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${baseUrl}${request.path}`,
        method: request.method,
        headers: request.headers,
        ...requestOptions(request),
        connections,
        duration: seconds,
        maxOverallRequests: MAX_REQUESTS_PER_SECOND * seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result)),
    );
  });
}

function countStatuses(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]));
}

function describeStatuses(result: autocannon.Result): string {
  return Object.entries(countStatuses(result))
    .map(([status, count]) => `${status}×${count}`)
    .join(', ');
}

/** Responses that passed: all 2xx, or only those with the row's exact status. */
function passedResponses(request: ResolvedRequest, result: autocannon.Result): number {
  return request.expectStatus === undefined ? result['2xx'] : (countStatuses(result)[String(request.expectStatus)] ?? 0);
}

function allPassed(request: ResolvedRequest, result: autocannon.Result): boolean {
  if (result.non2xx !== 0 || result.errors !== 0) return false;
  const passed = passedResponses(request, result);
  if (request.expectStatus === undefined) return passed > 0;
  const answered = Object.values(countStatuses(result)).reduce((sum, count) => sum + count, 0);
  return passed > 0 && passed === answered;
}

/** Throws a BenchFailure naming the statuses seen and what one request answers now. */
async function assertAllPassed(baseUrl: string, request: ResolvedRequest, result: autocannon.Result, phase: string): Promise<void> {
  if (allPassed(request, result)) return;
  const expected = request.expectStatus === undefined ? '2xx' : `exactly ${request.expectStatus}`;
  let sample: string;
  try {
    const { status, text } = await sendOnce(baseUrl, request);
    sample = `one request now answers ${status} ${text.slice(0, 300)}`;
  } catch (error) {
    sample = `one request now fails: ${error instanceof Error ? error.message : String(error)}`;
  }
  throw new BenchFailure(
    `${request.name} (${request.method} ${request.path}) ${phase}, expected ${expected}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx ` +
      `[${describeStatuses(result)}], ${result.errors} errors (${result.timeouts} timeouts); ${sample}`,
  );
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Fields of `data` that differ from the row's expectData, as "field: got x, expected y". */
function unmetExpectations(expected: Record<string, unknown>, data: unknown): string[] {
  const actual = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  return Object.entries(expected)
    .filter(([field, value]) => !isDeepStrictEqual(actual[field], value))
    .map(([field, value]) => `${field}: got ${JSON.stringify(actual[field])}, expected ${JSON.stringify(value)}`);
}

function unmetLength(minLength: number, data: unknown): string[] {
  if (Array.isArray(data) && data.length >= minLength) return [];
  const got = Array.isArray(data) ? `${data.length} entries` : `not an array (${typeof data})`;
  return [`data: got ${got}, expected at least ${minLength} entries`];
}

/** What the sample request answered: its body's size, and the length of `data` when it is a list. */
export interface SampleResponse {
  bodyBytes: number;
  dataLength?: number;
}

/**
 * One request before the warm-up: its status, and `data` when the row names expectations, must
 * be what the row says it measures. Its body size is the payload size the report gives.
 */
async function checkSampleResponse(baseUrl: string, request: ResolvedRequest): Promise<SampleResponse> {
  const { status, text } = await sendOnce(baseUrl, request);
  let data: unknown;
  try {
    data = (JSON.parse(text) as { data?: unknown }).data;
  } catch {
    data = undefined;
  }
  const statusOk = request.expectStatus === undefined ? status >= 200 && status < 300 : status === request.expectStatus;
  const unmet = [
    ...(request.expectData === undefined ? [] : unmetExpectations(request.expectData, data)),
    ...(request.minDataLength === undefined ? [] : unmetLength(request.minDataLength, data)),
  ];
  if (statusOk && unmet.length === 0) {
    return { bodyBytes: Buffer.byteLength(text), ...(Array.isArray(data) ? { dataLength: data.length } : {}) };
  }
  throw new BenchFailure(
    `${request.name} (${request.method} ${request.path}) sample request: ${status}${statusOk ? '' : ' (wrong status)'}` +
      `${unmet.length > 0 ? `; ${unmet.join('; ')}` : ''}; answered ${text.slice(0, 300)}`,
  );
}

export async function measureEndpoint(baseUrl: string, request: ResolvedRequest, options: BenchOptions): Promise<Measurement> {
  const sample = await checkSampleResponse(baseUrl, request);
  const warmup = await runAutocannon(baseUrl, request, options.warmupSeconds, options.connections);
  await assertAllPassed(baseUrl, request, warmup, 'during warm-up');
  const result = await runAutocannon(baseUrl, request, options.durationSeconds, options.connections);
  await assertAllPassed(baseUrl, request, result, 'during measurement');
  return {
    name: request.name,
    method: request.method,
    path: request.path,
    requestsPerSecond: round(result.requests.mean, 1),
    latencyMeanMs: round(result.latency.mean, 2),
    latencyP50Ms: round(result.latency.p50, 2),
    latencyP99Ms: round(result.latency.p99, 2),
    requests: passedResponses(request, result),
    statusCounts: countStatuses(result),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    sample,
  };
}
