// An endpoint row turned into a request ready to send: placeholders filled from the bench
// variables, the body serialised once (and, for rows whose body varies, a fresh body per
// request from a counter), and one-off sending outside autocannon.
import type { BenchEndpoint, HttpMethod } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';

/** The per-request counter's placeholder in a varying body. */
const COUNTER = '{n}';

export interface ResolvedRequest {
  name: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  /** The next body to send: the same string every time, or, when `varies`, a fresh one per call. */
  nextBody: () => string | undefined;
  varies: boolean;
  expectStatus?: number;
  expectData?: Record<string, unknown>;
  minDataLength?: number;
  dataListField?: string;
}

function fillPlaceholders(text: string, variables: BenchVariables, where: string, encode = (value: string) => value): string {
  return text.replace(/\{([a-z_]+)\}/g, (_match, key: string) => {
    const value = variables[key];
    if (value === undefined) throw new Error(`${where}: no value for placeholder {${key}}`);
    return encode(value);
  });
}

function fillJson(value: unknown, variables: BenchVariables, where: string): unknown {
  if (typeof value === 'string') return fillPlaceholders(value, variables, where);
  if (Array.isArray(value)) return value.map((item) => fillJson(item, variables, where));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillJson(item, variables, where)]));
  }
  return value;
}

/**
 * The body as a function. A varying body is serialised once with `{n}` left in place (JSON
 * does not escape braces), then each call substitutes the next counter value: the counter
 * is digits, so the result stays valid JSON.
 */
function bodyFactory(endpoint: BenchEndpoint, variables: BenchVariables, where: string): () => string | undefined {
  if (endpoint.body === undefined) {
    if (endpoint.bodyVaries) throw new Error(`${where}: bodyVaries needs a body`);
    return () => undefined;
  }
  if (!endpoint.bodyVaries) {
    const fixed = JSON.stringify(fillJson(endpoint.body, variables, where));
    return () => fixed;
  }
  const template = JSON.stringify(fillJson(endpoint.body, { ...variables, n: COUNTER }, where));
  if (!template.includes(COUNTER)) throw new Error(`${where}: bodyVaries is set but the body has no ${COUNTER}`);
  let counter = 0;
  return () => {
    counter += 1;
    return template.replaceAll(COUNTER, String(counter));
  };
}

export function resolveRequest(endpoint: BenchEndpoint, variables: BenchVariables): ResolvedRequest {
  const where = `endpoint "${endpoint.name}"`;
  const headers = Object.fromEntries(
    Object.entries(endpoint.headers).map(([name, value]) => [name, fillPlaceholders(value, variables, `${where} header ${name}`)]),
  );
  return {
    name: endpoint.name,
    method: endpoint.method,
    path: fillPlaceholders(endpoint.path, variables, `${where} path`, encodeURIComponent),
    headers,
    nextBody: bodyFactory(endpoint, variables, `${where} body`),
    varies: endpoint.bodyVaries ?? false,
    ...(endpoint.expectStatus === undefined ? {} : { expectStatus: endpoint.expectStatus }),
    ...(endpoint.minDataLength === undefined ? {} : { minDataLength: endpoint.minDataLength }),
    ...(endpoint.dataListField === undefined ? {} : { dataListField: endpoint.dataListField }),
    ...(endpoint.expectData === undefined
      ? {}
      : { expectData: fillJson(endpoint.expectData, variables, `${where} expectData`) as Record<string, unknown> }),
  };
}

export interface SingleResponse {
  status: number;
  text: string;
}

/** Sends a resolved request once (outside autocannon): setup, a sample check, or to explain a failure. */
export async function sendOnce(baseUrl: string, request: ResolvedRequest): Promise<SingleResponse> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.nextBody(),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, text: await response.text() };
}

/** Sends once and returns the envelope's `data`; any other status than `expectedStatus` throws. */
export async function sendForData(baseUrl: string, request: ResolvedRequest, expectedStatus: number): Promise<unknown> {
  const { status, text } = await sendOnce(baseUrl, request);
  let data: unknown;
  try {
    data = (JSON.parse(text) as { data?: unknown }).data;
  } catch {
    data = undefined;
  }
  if (status !== expectedStatus || data === undefined) {
    throw new Error(`${request.name} (${request.method} ${request.path}) answered ${status}, expected ${expectedStatus} with data: ${text.slice(0, 300)}`);
  }
  return data;
}
