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
  /** The headers of `kind` for one try; `fresh` asks for a new token (after a 401 for an expired one). */
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

/** Sends the call, trying again as the retry policy allows; the parsed success body, or a typed error. */
export async function sendCall(settings: TransportSettings, spec: CallSpec): Promise<unknown> {
  const method = spec.method.toUpperCase();
  const kind = authKindOf(spec.template);
  const idempotencyKey = spec.idempotencyKey ?? (method === 'POST' && IDEMPOTENT_CREATES.has(spec.template) ? randomUUID() : undefined);
  const repeatable = method !== 'POST' || idempotencyKey !== undefined || REPEATABLE_POSTS.has(spec.template);
  const url = buildUrl(settings.baseUrl, spec);
  let renewedToken = false;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': settings.userAgent, ...(await settings.authHeaders(kind)) };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let response: Response;
    try {
      response = await settings.fetch(url, { method, headers, body: spec.body === undefined ? undefined : JSON.stringify(spec.body), signal: spec.signal });
    } catch (cause) {
      if (spec.signal?.aborted) throw cause;
      const delay = repeatable ? retryDelay(settings.retry, attempt, undefined, null, settings.now()) : undefined;
      if (delay === undefined) throw new ErxNetworkError(method, spec.template, attempt + 1, { cause });
      await settings.sleep(delay);
      continue;
    }
    const body = await readBody(response);
    if (response.ok) return body;
    const error = new ErxApiError(response.status, body, response.headers, method, spec.template);
    if (kind === 'bearer' && !renewedToken && isStaleToken(error)) {
      renewedToken = true;
      settings.dropToken(headers.authorization);
      attempt -= 1;
      continue;
    }
    const delay = repeatable || response.status === 429 ? retryDelay(settings.retry, attempt, response.status, response.headers.get('retry-after'), settings.now()) : undefined;
    if (delay === undefined) throw error;
    await settings.sleep(delay);
  }
}
