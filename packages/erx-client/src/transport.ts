// One logical call to erx: the URL from the path template, the credentials the path needs, and
// the tries. A create gets one Idempotency-Key for all its tries, so a create that reached erx
// but whose answer was lost is answered again, not done twice. A call that is not safe to repeat
// (a POST with no key, such as rotating a secret) is tried again only after a 429, which erx
// answers before doing anything.
import { randomUUID } from 'node:crypto';
import { ErxApiError, ErxNetworkError } from './errors.js';
import { retryDelay, type RetryOptions } from './retry-policy.js';

/** Which credentials a path takes. */
export type AuthKind = 'none' | 'bearer' | 'partner' | 'credentials';

export interface TransportSettings {
  baseUrl: string;
  fetch: typeof fetch;
  retry: RetryOptions;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  userAgent: string;
  /** The headers of `kind` for one try (a bearer token from the cache, fetched when due). */
  authHeaders: (kind: AuthKind) => Promise<Record<string, string>>;
  /** Forgets the token sent with a try that erx refused as invalid or expired. */
  dropToken: (sent: string | undefined) => void;
}

export interface CallSpec {
  method: string;
  /** The path template as the OpenAPI document has it (`/v1/organizations/{organization_id}/...`). */
  template: string;
  path?: Record<string, string | number> | undefined;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** The creates that accept Idempotency-Key (erx's routes with `config.idempotent`). */
const IDEMPOTENT_CREATES = new Set([
  '/v1/organizations/{organization_id}/users/{user_id}/patients',
  '/v1/organizations/{organization_id}/users',
  '/v1/organizations/{organization_id}/custom-drugs',
  '/v1/organizations/{organization_id}/users/{user_id}/custom-drugs',
  '/v1/test-helpers/organizations/{organization_id}/users/{user_id}/patients/{patient_id}/prescriptions',
]);

/** POSTs that change nothing twice when repeated. */
const REPEATABLE_POSTS = new Set(['/v1/token', '/v1/sso', '/v1/organizations/{organization_id}/users/{user_id}/patients/ihi-precheck']);

/** The credentials of a path: partner self-service, the token and SSO calls, or a bearer token. */
export function authKindOf(template: string): AuthKind {
  if (template === '/v1/token' || template === '/v1/sso') return 'credentials';
  if (template.startsWith('/v1/partner/')) return 'partner';
  if (template.startsWith('/v1/organizations/') || template.startsWith('/v1/test-helpers/')) return 'bearer';
  return 'none';
}

export function buildUrl(baseUrl: string, spec: Pick<CallSpec, 'template' | 'path' | 'query'>): string {
  const path = spec.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = spec.path?.[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${spec.template}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(spec.query ?? {})) if (value !== undefined) query.set(key, String(value));
  const search = query.size > 0 ? `?${query}` : '';
  return `${baseUrl.replace(/\/+$/, '')}${path}${search}`;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A 401 that a new token can cure: erx's detail for a missing, invalid or expired token. */
function isStaleToken(error: ErxApiError): boolean {
  return error.status === 401 && error.problem?.detail === 'Valid authentication token is required';
}

interface PreparedCall {
  method: string;
  kind: AuthKind;
  url: string;
  idempotencyKey: string | undefined;
  /** Whether a try that may have reached erx can be sent again. */
  repeatable: boolean;
}

function prepare(settings: TransportSettings, spec: CallSpec): PreparedCall {
  const method = spec.method.toUpperCase();
  const idempotencyKey = spec.idempotencyKey ?? (method === 'POST' && IDEMPOTENT_CREATES.has(spec.template) ? randomUUID() : undefined);
  const repeatable = method !== 'POST' || idempotencyKey !== undefined || REPEATABLE_POSTS.has(spec.template);
  return { method, kind: authKindOf(spec.template), url: buildUrl(settings.baseUrl, spec), idempotencyKey, repeatable };
}

type TryOutcome = { response: Response; body: unknown; sentToken: string | undefined } | { failure: unknown };

async function tryOnce(settings: TransportSettings, call: PreparedCall, spec: CallSpec): Promise<TryOutcome> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': settings.userAgent, ...(await settings.authHeaders(call.kind)) };
  if (spec.body !== undefined) headers['content-type'] = 'application/json';
  if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
  try {
    const init = { method: call.method, headers, body: spec.body === undefined ? undefined : JSON.stringify(spec.body), signal: spec.signal };
    const response = await settings.fetch(call.url, init);
    return { response, body: await readBody(response), sentToken: headers.authorization };
  } catch (failure) {
    if (spec.signal?.aborted) throw failure;
    return { failure };
  }
}

/** Sends the call, trying again as the retry policy allows; the parsed success body, or a typed error. */
export async function sendCall(settings: TransportSettings, spec: CallSpec): Promise<unknown> {
  const call = prepare(settings, spec);
  let renewedToken = false;
  for (let attempt = 0; ; attempt++) {
    const outcome = await tryOnce(settings, call, spec);
    if ('failure' in outcome) {
      const delay = call.repeatable ? retryDelay(settings.retry, attempt, undefined, null, settings.now()) : undefined;
      if (delay === undefined) throw new ErxNetworkError(call.method, spec.template, attempt + 1, { cause: outcome.failure });
      await settings.sleep(delay);
      continue;
    }
    const { response, body } = outcome;
    if (response.ok) return body;
    const error = new ErxApiError(response.status, body, response.headers, call.method, spec.template);
    if (call.kind === 'bearer' && !renewedToken && isStaleToken(error)) {
      // Once per call, and not counted as a try: the token expired (or erx's keys changed) since it was kept.
      renewedToken = true;
      settings.dropToken(outcome.sentToken);
      attempt -= 1;
      continue;
    }
    const mayRepeat = call.repeatable || response.status === 429;
    const delay = mayRepeat ? retryDelay(settings.retry, attempt, response.status, response.headers.get('retry-after'), settings.now()) : undefined;
    if (delay === undefined) throw error;
    await settings.sleep(delay);
  }
}
