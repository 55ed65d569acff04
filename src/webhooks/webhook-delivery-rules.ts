// The spec's delivery rules ("Limits": attempts, timeout, backoff, retry classification), as
// one table, and the decisions read from it. Nothing else in the code knows these numbers.

// The webhook job's retry table on the delivery toolkit (platform/delivery/delivery-outcomes.ts).
import { classifyHttpStatus, HTTP_OUTCOME_CLASSES, nextStepOf, type HttpOutcomeClass, type NextStep, type OutcomeEffect, type RetryTable } from '../platform/delivery/index.ts';

/** How an attempt ended, as the attempt log records it: the HTTP classes of the toolkit (the list is the stored column's). */
export const OUTCOME_CLASSES = HTTP_OUTCOME_CLASSES;
export type OutcomeClass = HttpOutcomeClass;
export { classifyHttpStatus, type NextStep, type OutcomeEffect };

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
} as const satisfies RetryTable<OutcomeClass> & { attemptTimeoutMs: number };

/** After attempt number `attempt` ended with `outcome`: delivered, failed for good, or the wait before the next. */
export function nextStepAfter(attempt: number, outcome: OutcomeClass): NextStep {
  return nextStepOf(WEBHOOK_DELIVERY_RULES, attempt, outcome);
}
