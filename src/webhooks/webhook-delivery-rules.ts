// The spec's delivery rules ("Limits": attempts, timeout, backoff, retry classification), as
// one table, and the decisions read from it. Nothing else in the code knows these numbers.

/** How an attempt ended, as the attempt log records it (the list is the stored column's). */
export { OUTCOME_CLASSES, type OutcomeClass } from '../platform/db/stored-values.ts';
import type { OutcomeClass } from '../platform/db/stored-values.ts';

/** What an outcome means for the delivery: done, try again (if attempts remain), or give up. */
export type OutcomeEffect = 'delivered' | 'retry' | 'fail';

export const WEBHOOK_DELIVERY_RULES = {
  /** "Webhook attempts: 3 per event". */
  maxAttempts: 3,
  /** "attempt 2 one second after attempt 1 fails; attempt 3 two seconds after attempt 2 fails". */
  delayAfterFailedAttemptMs: { 1: 1_000, 2: 2_000 } as Record<number, number>,
  /** "Webhook request timeout: 10 seconds per attempt" (ERX_WEBHOOK_TIMEOUT_MS shortens it for tests). */
  attemptTimeoutMs: 10_000,
  /**
   * "Retried on network errors, timeouts, 408, 429 and any 5xx. Not retried: any other 4xx."
   * Redirects are never followed and not retried (DESIGN decision 14); an address the SSRF
   * guard refuses will be refused again, so it is not retried either.
   */
  outcomes: {
    success: 'delivered',
    http_4xx: 'fail',
    http_5xx: 'retry',
    http_408: 'retry',
    http_429: 'retry',
    redirect: 'fail',
    timeout: 'retry',
    dns: 'retry',
    connect: 'retry',
    tls: 'retry',
    blocked_address: 'fail',
  } satisfies Record<OutcomeClass, OutcomeEffect>,
} as const;

/** The class of a complete HTTP answer. 1xx never reaches here (undici handles informational answers). */
export function classifyHttpStatus(status: number): OutcomeClass {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 408) return 'http_408';
  if (status === 429) return 'http_429';
  if (status >= 500) return 'http_5xx';
  return 'http_4xx';
}

export type NextStep = { kind: 'delivered' } | { kind: 'failed' } | { kind: 'retry'; delayMs: number };

/** After attempt number `attempt` ended with `outcome`: delivered, failed for good, or the wait before the next. */
export function nextStepAfter(attempt: number, outcome: OutcomeClass): NextStep {
  const effect = WEBHOOK_DELIVERY_RULES.outcomes[outcome];
  if (effect === 'delivered') return { kind: 'delivered' };
  if (effect === 'fail' || attempt >= WEBHOOK_DELIVERY_RULES.maxAttempts) return { kind: 'failed' };
  const delayMs = WEBHOOK_DELIVERY_RULES.delayAfterFailedAttemptMs[attempt];
  if (delayMs === undefined) throw new Error(`no backoff defined after attempt ${attempt}`);
  return { kind: 'retry', delayMs };
}
