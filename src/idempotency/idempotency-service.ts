// Safe retries of creates: a request sent with an `Idempotency-Key` claims the key (per
// partner and organization) before its work starts. The same key with the same request within
// 24 hours then gets the first response (status and body) without the work being done again —
// waiting for it when the first request is still running, on this instance or another; the
// same key with a different request is a 422 naming the header.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError, validationFailed } from '../platform/http/api-error.ts';
import { decryptSecret, encryptSecret } from '../platform/secrets.ts';
import type { AuditTrail } from '../audit/index.ts';
import type { Deps } from '../deps.ts';
import {
  deleteExpiredIdempotencyKeys,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  storeIdempotentResponse,
  takeOverIdempotencyKey,
  type KeyScope,
} from './idempotency-store.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The spec's and DESIGN.md's numbers, with the two of our own. */
export const IDEMPOTENCY_LIMITS = {
  /** How long a key answers with its first response. */
  windowSeconds: 24 * 3600,
  /** A first request still `in_progress` after this long was abandoned (its process died). */
  leaseSeconds: 60,
  /** How long a retry waits for a first request still running before a 409. */
  waitMs: 10_000,
  waitStepMs: 25,
  /** Longest key accepted, in characters. */
  maxKeyLength: 255,
  /** Expired keys are swept at most this often per process. */
  sweepEverySeconds: 60,
} as const;

export interface IdempotencyContext {
  db: Kysely<Database>;
  clock: Clock;
  lastSweepMs: number;
  /** Encrypts the stored responses, which can hold a patient's details. */
  secretKey: Buffer;
  /** How a retry waits between looks at a key whose first request is still running (tests watch it). */
  waitForFirst: (ms: number) => Promise<void>;
  /** Where a retry answered with the first response is noted (a read of what it made). */
  audit: AuditTrail;
}

export function createIdempotencyContext(deps: Pick<Deps, 'database' | 'clock' | 'secretKey'>, features: { audit: AuditTrail }): IdempotencyContext {
  return { db: deps.database, clock: deps.clock, lastSweepMs: Number.NEGATIVE_INFINITY, secretKey: deps.secretKey, waitForFirst: (ms) => sleep(ms), audit: features.audit };
}

/** A stored response: encrypted (`v1.` ...), or a JSON body kept in clear before responses were encrypted. */
const openStoredResponse = (ctx: IdempotencyContext, stored: string) => (stored.startsWith('v1.') ? decryptSecret(stored, ctx.secretKey) : stored);

/** The request a key stands for: its method, URL and body (object keys in any order). */
export interface KeyedRequest {
  method: string;
  url: string;
  body: unknown;
}

export type IdempotencyClaim = { kind: 'first'; scope: KeyScope } | { kind: 'replay'; status: number; body: string };

/** JSON with every object's keys sorted: the same body however a client orders its fields. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprintOf(request: KeyedRequest): string {
  return createHash('sha256').update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`).digest('hex');
}

function readKey(key: string): string {
  if (key.length === 0 || key.length > IDEMPOTENCY_LIMITS.maxKeyLength || !/^[\x21-\x7e]+$/.test(key)) {
    const message = `must be 1 to ${IDEMPOTENCY_LIMITS.maxKeyLength} visible ASCII characters (a UUID is a good key)`;
    throw validationFailed([{ field: 'Idempotency-Key', message, code: 'VALIDATION_ERROR' }], 'The Idempotency-Key header is not valid');
  }
  return key;
}

const reusedKey = () =>
  validationFailed(
    [{ field: 'Idempotency-Key', message: 'was already used with a different request; use a new key for a new request', code: 'VALIDATION_ERROR' }],
    'This Idempotency-Key belongs to another request',
  );

const secondsFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

async function sweepExpiredKeys(ctx: IdempotencyContext, now: Date): Promise<void> {
  if (now.getTime() - ctx.lastSweepMs < IDEMPOTENCY_LIMITS.sweepEverySeconds * 1000) return;
  ctx.lastSweepMs = now.getTime();
  await deleteExpiredIdempotencyKeys(ctx.db, now.toISOString());
}

/** Claims `key` for `request`, or answers what the first request with it answered. */
export async function claimIdempotencyKey(
  ctx: IdempotencyContext,
  owner: { partnerId: string; organizationId: string },
  key: string,
  request: KeyedRequest,
): Promise<IdempotencyClaim> {
  const scope: KeyScope = { partnerId: owner.partnerId, organizationId: owner.organizationId, key: readKey(key) };
  const fingerprint = fingerprintOf(request);
  const deadline = Date.now() + IDEMPOTENCY_LIMITS.waitMs;
  for (;;) {
    const now = ctx.clock.now();
    await sweepExpiredKeys(ctx, now);
    const claimed = { fingerprint, state: 'in_progress' as const, created_at: now.toISOString(), locked_until: secondsFrom(now, IDEMPOTENCY_LIMITS.leaseSeconds), expires_at: secondsFrom(now, IDEMPOTENCY_LIMITS.windowSeconds) };
    if (await insertIdempotencyKey(ctx.db, { partner_id: scope.partnerId, organization_id: scope.organizationId, idempotency_key: scope.key, ...claimed })) {
      return { kind: 'first', scope };
    }
    const existing = await findIdempotencyKey(ctx.db, scope);
    if (!existing) continue;
    const expired = existing.expires_at <= claimed.created_at;
    if (!expired && existing.fingerprint !== fingerprint) throw reusedKey();
    if (expired || (existing.state === 'in_progress' && existing.locked_until <= claimed.created_at)) {
      if (await takeOverIdempotencyKey(ctx.db, scope, existing.locked_until, claimed)) return { kind: 'first', scope };
      continue;
    }
    if (existing.state === 'done') return { kind: 'replay', status: existing.response_status!, body: openStoredResponse(ctx, existing.response_body!) };
    if (Date.now() >= deadline) {
      throw new ApiError('CONFLICT', 'A request with this Idempotency-Key is still being processed; retry shortly');
    }
    await ctx.waitForFirst(IDEMPOTENCY_LIMITS.waitStepMs);
  }
}

/**
 * The first request has its response: kept for the retries, unless it is a server error, after
 * which the key is let go so that a retry does the work.
 */
export async function settleIdempotencyKey(ctx: IdempotencyContext, claim: IdempotencyClaim, status: number, body: string): Promise<void> {
  if (claim.kind !== 'first') return;
  if (status >= 500) await deleteIdempotencyKey(ctx.db, claim.scope);
  else await storeIdempotentResponse(ctx.db, claim.scope, status, encryptSecret(body, ctx.secretKey));
}
