// One measurement: a sample request checked against the row's expectations, then autocannon
// drives the request for a warm-up and for the measured duration, in slices that alternate
// with slices of its baseline (measureAgainstBaseline). Every response of every run must be
// 2xx (or exactly the row's expected status), or the bench fails.
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { SLICE_SECONDS, type BenchOptions } from './bench-options.ts';
import { cpuSecondsOf } from './bench-processes.ts';
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
  /** Responses per second over the measured slices (all responses ÷ the slices' seconds). */
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
  /** Seconds measured, all slices together. */
  durationSeconds: number;
  /** How many slices the measured seconds were split into. */
  slices: number;
  /** The sample request sent before the warm-up. */
  sample: SampleResponse;
  /** CPU (user + system) of the server process per response, in µs, over the measured slices; when its process is known. */
  cpuMicrosPerRequest?: number;
}

export class BenchFailure extends Error {
  override name = 'BenchFailure';
}

/** The sample request before the warm-up was not what the row expects (compare mode skips such a row on the older commit). */
export class SampleMismatch extends BenchFailure {
  override name = 'SampleMismatch';
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

/**
 * One autocannon run as it comes with skipAggregateResult: the counts, and the latency histogram
 * still encoded so that the runs of several slices can be merged into one (aggregateResult).
 */
export interface RawRun {
  duration: number;
  totalCompletedRequests: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count?: number }>;
  /** CPU seconds the server process used during the run (set by measureAgainstBaseline when the target names its process). */
  cpuSeconds?: number;
}

/** autocannon.aggregateResult, which its type definitions lack; its options only label the result, but a URL is required. */
const { aggregateResult } = autocannon as unknown as { aggregateResult(runs: RawRun[], options: { url: string }): autocannon.Result };

function runAutocannon(baseUrl: string, request: ResolvedRequest, seconds: number, connections: number): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        skipAggregateResult: true,
        url: `${baseUrl}${request.path}`,
        method: request.method,
        headers: request.headers,
        ...requestOptions(request),
        connections,
        duration: seconds,
        maxOverallRequests: MAX_REQUESTS_PER_SECOND * seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result as unknown as RawRun)),
    );
  });
}

function countStatuses(result: Pick<RawRun, 'statusCodeStats'>): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]));
}

function describeStatuses(result: RawRun): string {
  return Object.entries(countStatuses(result))
    .map(([status, count]) => `${status}×${count}`)
    .join(', ');
}

/** Responses that passed: all 2xx, or only those with the row's exact status. */
function passedResponses(request: ResolvedRequest, result: RawRun): number {
  return request.expectStatus === undefined ? result['2xx'] : (countStatuses(result)[String(request.expectStatus)] ?? 0);
}

function allPassed(request: ResolvedRequest, result: RawRun): boolean {
  if (result.non2xx !== 0 || result.errors !== 0) return false;
  const passed = passedResponses(request, result);
  if (request.expectStatus === undefined) return passed > 0;
  const answered = Object.values(countStatuses(result)).reduce((sum, count) => sum + count, 0);
  return passed > 0 && passed === answered;
}

/** Throws a BenchFailure naming the statuses seen and what one request answers now. */
async function assertAllPassed(baseUrl: string, request: ResolvedRequest, result: RawRun, phase: string): Promise<void> {
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

/** The list a row counts: `data`, or the field of it the row names. */
function listOf(data: unknown, field: string | undefined): unknown {
  return field === undefined ? data : (data as Record<string, unknown> | null | undefined)?.[field];
}

function unmetLength(minLength: number, list: unknown, name: string): string[] {
  if (Array.isArray(list) && list.length >= minLength) return [];
  const got = Array.isArray(list) ? `${list.length} entries` : `not an array (${typeof list})`;
  return [`${name}: got ${got}, expected at least ${minLength} entries`];
}

/** What the sample request answered: its body's size, and the length of the list it counts (`data`, or the field the row names). */
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
  const list = listOf(data, request.dataListField);
  const listName = request.dataListField === undefined ? 'data' : `data.${request.dataListField}`;
  const unmet = [
    ...(request.expectData === undefined ? [] : unmetExpectations(request.expectData, data)),
    ...(request.minDataLength === undefined ? [] : unmetLength(request.minDataLength, list, listName)),
  ];
  if (statusOk && unmet.length === 0) {
    return { bodyBytes: Buffer.byteLength(text), ...(Array.isArray(list) ? { dataLength: list.length } : {}) };
  }
  throw new SampleMismatch(
    `${request.name} (${request.method} ${request.path}) sample request: ${status}${statusOk ? '' : ' (wrong status)'}` +
      `${unmet.length > 0 ? `; ${unmet.join('; ')}` : ''}; answered ${text.slice(0, 300)}`,
  );
}

/** What autocannon drives: a server and one request. */
export interface LoadTarget {
  baseUrl: string;
  request: ResolvedRequest;
  /** The server's process: its CPU time is read around each measured slice. */
  pid?: number;
}

/** A baseline route, checked and warmed up once before the API is measured against it. */
export interface WarmBaseline extends LoadTarget {
  sample: SampleResponse;
}

/**
 * The measured seconds as slices of at least SLICE_SECONDS (one slice for short runs), so that
 * connecting and the first requests of each slice weigh little.
 */
export function planSlices(durationSeconds: number): { count: number; seconds: number } {
  const count = Math.max(1, Math.floor(durationSeconds / SLICE_SECONDS));
  return { count, seconds: durationSeconds / count };
}

/** Slice i of a pair: A B for even i, B A for odd i (A B B A A B …), so a steady drift of the machine's speed cancels out. */
export function sliceOrder<T>(index: number, first: T, second: T): [T, T] {
  return index % 2 === 0 ? [first, second] : [second, first];
}

/** One Measurement from the unaggregated runs (slices) of one request. */
export function summarizeSlices(request: ResolvedRequest, slices: RawRun[], sample: SampleResponse): Measurement {
  // aggregateResult adds the later runs into the first one's status counts: give it copies.
  const copies = slices.map((slice) => ({ ...slice, statusCodeStats: structuredClone(slice.statusCodeStats ?? {}) }));
  const merged = aggregateResult(copies, { url: `http://127.0.0.1${request.path}` });
  const seconds = slices.reduce((sum, slice) => sum + slice.duration, 0);
  const answered = slices.reduce((sum, slice) => sum + slice.totalCompletedRequests, 0);
  const cpuSeconds = slices.every((slice) => slice.cpuSeconds !== undefined) ? slices.reduce((sum, slice) => sum + slice.cpuSeconds!, 0) : undefined;
  return {
    name: request.name,
    method: request.method,
    path: request.path,
    requestsPerSecond: round(answered / seconds, 1),
    latencyMeanMs: round(merged.latency.mean, 2),
    latencyP50Ms: round(merged.latency.p50, 2),
    latencyP99Ms: round(merged.latency.p99, 2),
    requests: slices.reduce((sum, slice) => sum + passedResponses(request, slice), 0),
    statusCounts: countStatuses(merged),
    non2xx: merged.non2xx,
    errors: merged.errors,
    timeouts: merged.timeouts,
    durationSeconds: round(seconds, 2),
    slices: slices.length,
    sample,
    ...(cpuSeconds === undefined || answered === 0 ? {} : { cpuMicrosPerRequest: round((cpuSeconds / answered) * 1e6, 1) }),
  };
}

/** The sample request, then the unrecorded warm-up; returns what the sample answered. */
async function checkAndWarmUp({ baseUrl, request }: LoadTarget, options: BenchOptions): Promise<SampleResponse> {
  const sample = await checkSampleResponse(baseUrl, request);
  const warmup = await runAutocannon(baseUrl, request, options.warmupSeconds, options.connections);
  await assertAllPassed(baseUrl, request, warmup, 'during warm-up');
  return sample;
}

/** Checks and warms up a baseline route; its measurements come later, beside each row. */
export async function warmUpBaseline(baseUrl: string, request: ResolvedRequest, options: BenchOptions, pid?: number): Promise<WarmBaseline> {
  return { baseUrl, request, pid, sample: await checkAndWarmUp({ baseUrl, request }, options) };
}

export interface PairedMeasurement {
  row: Measurement;
  /** The baseline, measured in the slices between the row's. */
  baseline: Measurement;
  /** The baseline's unaggregated slices, for a run-wide baseline figure. */
  baselineSlices: RawRun[];
}

/**
 * The row's sample and warm-up, then its measured seconds in slices that alternate with
 * equally long slices of the baseline (A B B A …). The machine's speed drifts by tens of
 * percent over minutes; a baseline measured right beside the row moves with it, so the ratio
 * of the two no longer depends on when in the run the row came.
 */
export async function measureAgainstBaseline(row: LoadTarget, baseline: WarmBaseline, options: BenchOptions): Promise<PairedMeasurement> {
  const sample = await checkAndWarmUp(row, options);
  const plan = planSlices(options.durationSeconds);
  const rowSlices: RawRun[] = [];
  const baselineSlices: RawRun[] = [];
  for (let index = 0; index < plan.count; index++) {
    for (const target of sliceOrder(index, baseline, row)) {
      const cpuBefore = target.pid === undefined ? undefined : cpuSecondsOf(target.pid);
      const result = await runAutocannon(target.baseUrl, target.request, plan.seconds, options.connections);
      if (cpuBefore !== undefined) result.cpuSeconds = cpuSecondsOf(target.pid!) - cpuBefore;
      await assertAllPassed(target.baseUrl, target.request, result, `during measurement (slice ${index + 1} of ${plan.count})`);
      (target === row ? rowSlices : baselineSlices).push(result);
    }
  }
  return {
    row: summarizeSlices(row.request, rowSlices, sample),
    baseline: summarizeSlices(baseline.request, baselineSlices, baseline.sample),
    baselineSlices,
  };
}
