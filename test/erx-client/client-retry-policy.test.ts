// The client's retry rules as tables: which answers are tried again, how Retry-After reads,
// and the bounds of the jittered backoff.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY } from '../../packages/erx-client/src/index.ts';
import { backoffDelay, parseRetryAfter, retryDelay } from '../../packages/erx-client/src/retry-policy.ts';

const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('retryDelay', () => {
  it.each([
    { status: undefined, retryAfter: null, attempt: 0, retried: true, why: 'a network error' },
    { status: 500, retryAfter: null, attempt: 0, retried: true, why: 'a 500' },
    { status: 502, retryAfter: null, attempt: 2, retried: true, why: 'a 502 before the last try' },
    { status: 503, retryAfter: null, attempt: 3, retried: false, why: 'the bound reached' },
    { status: 429, retryAfter: '3', attempt: 0, retried: true, why: 'a 429' },
    { status: 429, retryAfter: '61', attempt: 0, retried: false, why: 'a Retry-After beyond 60 s' },
    { status: 400, retryAfter: null, attempt: 0, retried: false, why: 'a 400' },
    { status: 401, retryAfter: null, attempt: 0, retried: false, why: 'a 401' },
    { status: 404, retryAfter: null, attempt: 0, retried: false, why: 'a 404' },
    { status: 409, retryAfter: null, attempt: 0, retried: false, why: 'a 409' },
    { status: 422, retryAfter: null, attempt: 0, retried: false, why: 'a 422' },
  ])('after $why: retried $retried', ({ status, retryAfter, attempt, retried }) => {
    expect(retryDelay(DEFAULT_RETRY, attempt, status, retryAfter, NOW) !== undefined).toBe(retried);
  });

  it('waits what a 429 or 503 Retry-After asks, in seconds or as an HTTP date', () => {
    expect(retryDelay(DEFAULT_RETRY, 0, 429, '3', NOW)).toBe(3000);
    expect(retryDelay(DEFAULT_RETRY, 0, 503, new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
  });
});

describe('backoffDelay', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 10])('stays between half and all of the step at attempt %i, at most maxDelayMs', (attempt) => {
    const step = Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** attempt);
    expect(backoffDelay(DEFAULT_RETRY, attempt, () => 0)).toBe(step / 2);
    expect(backoffDelay(DEFAULT_RETRY, attempt, () => 0.999999)).toBeLessThanOrEqual(step);
    expect(backoffDelay(DEFAULT_RETRY, attempt, () => 0.999999)).toBeGreaterThan(step * 0.99);
  });
});
