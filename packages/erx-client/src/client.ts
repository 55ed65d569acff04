// createErxClient: a partner's credentials in, typed calls out. `request` takes any operation of
// erx's OpenAPI document (path template, method, its path parameters, query and body, all checked
// against the generated types); the convenience methods (client-methods.ts) name the common ones.
import { authKindOf, sendCall, type AuthKind, type TransportSettings } from './transport.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
import { createTokenCache, type TokenCache } from './token-cache.js';
import type { Call, Operation, paths } from './operations.js';
import { describeMethods, type ErxMethods } from './client-methods.js';

type TokenRequest = Operation<'/v1/token', 'post'> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
export type ErxScope = TokenRequest extends { scope: Array<infer S> } ? S : never;

/** Every scope a partner may hold outside the sandbox; erx grants those the organization allows. */
export const DEFAULT_SCOPES: ErxScope[] = [
  'create:patient', 'read:patient', 'update:patient', 'read:patient_prescription',
  'create:user', 'read:user', 'read:users', 'update:user', 'delete:user',
  'read:custom_drug', 'create:custom_drug', 'update:custom_drug', 'delete:custom_drug',
];

export interface ErxClientOptions {
  /** erx's base URL, with its base path if mounted under one (`https://api.example/external`). */
  baseUrl: string;
  partnerId: string;
  partnerSecret: string;
  organizationId: string;
  organizationSecret: string;
  /** The user (x-user-id) tokens are issued for: the prescriber acting. */
  userId: string;
  /** Scopes to ask tokens for (default DEFAULT_SCOPES; add `sandbox:prescribe` for the sandbox's test helpers). */
  scopes?: ErxScope[];
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Tries after the first, or the whole policy (see retry-policy.ts). */
  retries?: number | Partial<RetryOptions>;
  /** Waits between tries (default setTimeout); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch (default Date.now): when a token is due for renewal. */
  now?: () => number;
  userAgent?: string;
}

/** The credentials stay inside: a client logged or serialized shows none of them. */
export interface ErxClient extends ErxMethods {
  /** Any operation of erx's OpenAPI document, typed by it; answers the success body (the envelope). */
  request: Call;
  /** A client for another user of the same organization (its own token). */
  forUser(userId: string): ErxClient;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retryOptionsOf(retries: ErxClientOptions['retries']): RetryOptions {
  if (retries === undefined) return DEFAULT_RETRY;
  return typeof retries === 'number' ? { ...DEFAULT_RETRY, retries } : { ...DEFAULT_RETRY, ...retries };
}

function credentialHeaders(options: ErxClientOptions, kind: AuthKind): Record<string, string> {
  if (kind === 'none' || kind === 'bearer') return {};
  const partner = { 'x-partner-id': options.partnerId, 'x-partner-secret': options.partnerSecret };
  if (kind === 'partner') return partner;
  return { ...partner, 'x-organization-id': options.organizationId, 'x-organization-secret': options.organizationSecret, 'x-user-id': options.userId };
}

export function createErxClient(options: ErxClientOptions): ErxClient {
  if (!options.baseUrl) throw new TypeError('createErxClient: baseUrl is required');
  const now = options.now ?? Date.now;
  let tokens: TokenCache;
  const settings: TransportSettings = {
    baseUrl: options.baseUrl,
    fetch: options.fetch ?? globalThis.fetch,
    retry: retryOptionsOf(options.retries),
    sleep: options.sleep ?? realSleep,
    now,
    userAgent: options.userAgent ?? '@erx/client',
    authHeaders: async (kind) =>
      kind === 'bearer'
        ? { authorization: `Bearer ${await tokens.current()}`, 'x-organization-secret': options.organizationSecret }
        : credentialHeaders(options, kind),
    dropToken: (sent) => tokens.drop(sent),
  };
  const request = ((method: string, template: string, call: Record<string, unknown> = {}) =>
    sendCall(settings, { ...call, method, template } as Parameters<typeof sendCall>[1])) as Call;
  tokens = createTokenCache(async () => {
    const body = { grantType: 'client_credentials' as const, scope: options.scopes ?? DEFAULT_SCOPES };
    const answer = await request('post', '/v1/token', { body });
    return answer.data;
  }, now);
  return {
    request,
    forUser: (userId) => createErxClient({ ...options, userId }),
    ...describeMethods(request, options, () => tokens.current()),
  };
}

export { authKindOf };
export type { paths };
