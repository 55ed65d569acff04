// When a call is tried again, and after how long: network errors, 429 and 5xx, with exponential
// backoff and full jitter between half and all of the step, bounded; a 429's Retry-After (seconds
// or an HTTP date) is honoured as given, unless it is longer than maxRetryAfterMs (then the
// error is the caller's). A 4xx other than 429 is never tried again: the same request would get
// the same answer.

export interface RetryOptions {
  /** Tries after the first (default 3). */
  retries: number;
  /** First backoff step in ms (default 250), doubled on each try. */
  baseDelayMs: number;
  /** Largest backoff step in ms (default 8000). */
  maxDelayMs: number;
  /** Longest Retry-After the client waits for, in ms (default 60000). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 250, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

/** The statuses that may succeed if sent again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Milliseconds a Retry-After header asks for, or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The wait before try number `attempt + 1` (attempt 0 is the first try): exponential, jittered, bounded. */
export function backoffDelay(options: RetryOptions, attempt: number, random: () => number = Math.random): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * How long to wait before trying again after `status` (undefined: a network error), or undefined
 * when the call must not be tried again.
 */
export function retryDelay(options: RetryOptions, attempt: number, status: number | undefined, retryAfter: string | null, nowMs: number): number | undefined {
  if (attempt >= options.retries) return undefined;
  if (status !== undefined && !isRetryableStatus(status)) return undefined;
  const asked = status === undefined ? undefined : parseRetryAfter(retryAfter, nowMs);
  if (asked === undefined) return backoffDelay(options, attempt);
  return asked <= options.maxRetryAfterMs ? asked : undefined;
}
