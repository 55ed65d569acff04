// What the bench drives, as data. One row per API endpoint: later features add a row each.
// Paths, header values and body strings may hold {placeholders}, filled from the bench
// variables (the sandbox credentials and the access token) just before the run.
import { SCOPES } from '../src/auth/scopes.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which bare-Fastify route an endpoint is compared to. */
export type BaselineKind = 'GET' | 'POST';

export interface BenchEndpoint {
  name: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  baseline: BaselineKind;
  /** Target: the lowest acceptable req/s, as a fraction of the baseline's req/s. */
  minBaselineRatio?: number;
}

/** The values placeholders are filled from, e.g. {organization_id} or {access_token}. */
export type BenchVariables = Record<string, string>;

const JSON_CONTENT = { 'content-type': 'application/json' };

const TOKEN_CREDENTIALS = {
  'x-partner-id': '{partner_id}',
  'x-partner-secret': '{partner_secret}',
  'x-organization-id': '{organization_id}',
  'x-organization-secret': '{organization_secret}',
  'x-user-id': '{prescriber_user_id}',
};

const BEARER = {
  authorization: 'Bearer {access_token}',
  'x-organization-secret': '{organization_secret}',
};

/** POST /v1/token as the prescriber, with every scope: measured, and how the bench gets its token. */
export const TOKEN_ENDPOINT: BenchEndpoint = {
  name: 'token',
  method: 'POST',
  path: '/v1/token',
  headers: { ...JSON_CONTENT, ...TOKEN_CREDENTIALS },
  body: { grantType: 'client_credentials', scope: [...SCOPES] },
  baseline: 'POST',
};

export const API_ENDPOINTS: BenchEndpoint[] = [
  TOKEN_ENDPOINT,
  {
    name: 'validate',
    method: 'GET',
    path: '/v1/organizations/{organization_id}/validate',
    headers: BEARER,
    baseline: 'GET',
    minBaselineRatio: 0.5,
  },
];

/** The bare Fastify app's routes (bench/baseline-server.ts), one per baseline kind. */
export const BASELINE_ENDPOINTS: Record<BaselineKind, BenchEndpoint> = {
  GET: { name: 'baseline GET', method: 'GET', path: '/baseline', headers: {}, baseline: 'GET' },
  POST: {
    name: 'baseline POST',
    method: 'POST',
    path: '/baseline',
    headers: JSON_CONTENT,
    body: { name: 'baseline', tags: ['a', 'b', 'c'], count: 3 },
    baseline: 'POST',
  },
};

/** A request ready to send: placeholders filled, body serialised. */
export interface ResolvedRequest {
  name: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
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
    body: endpoint.body === undefined ? undefined : JSON.stringify(fillJson(endpoint.body, variables, `${where} body`)),
  };
}

export interface SingleResponse {
  status: number;
  text: string;
}

/** Sends a resolved request once (outside autocannon): to get a token, or to explain a failure. */
export async function sendOnce(baseUrl: string, request: ResolvedRequest): Promise<SingleResponse> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, text: await response.text() };
}
