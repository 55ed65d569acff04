// How one attempt of a durable job ended, whatever the channel (an HTTP receiver, Twilio, an
// SMTP server, the Prescription Delivery Service), and the retry table each job reads it
// through: done, try again after a pause, or give up. A job's table names only the classes its
// channels can produce (`satisfies Record<ItsClasses, OutcomeEffect>`), so a class it cannot
// meet is a type error, not a silent default.
import { OUTCOME_CLASSES } from '../db/stored-values.ts';

/** Classes of an answer over HTTP, plus the network failures and the SSRF guard's refusal; what webhook attempts store. */
export const HTTP_OUTCOME_CLASSES = OUTCOME_CLASSES;
export type HttpOutcomeClass = (typeof HTTP_OUTCOME_CLASSES)[number];

/**
 * Every class a job may record. Beside HTTP's: a server of another protocol `refused` the
 * job for good (an SMTP 5xx reply, a PDS rejection) or `deferred` it (an SMTP 4xx reply: try
 * later); `unconfigured`: no channel is set up to send it (never sent, not retried).
 */
export const DELIVERY_OUTCOME_CLASSES = [...HTTP_OUTCOME_CLASSES, 'refused', 'deferred', 'unconfigured'] as const;
export type DeliveryOutcomeClass = (typeof DELIVERY_OUTCOME_CLASSES)[number];

/** What an outcome means for the job: done, try again (if attempts remain), or give up. */
export type OutcomeEffect = 'delivered' | 'retry' | 'fail';

/** One job's rules: how many attempts, the pause after each failed one, and each class's effect. */
export interface RetryTable<C extends DeliveryOutcomeClass = DeliveryOutcomeClass> {
  maxAttempts: number;
  /** Pause (ms) after failed attempt number N, for each N below maxAttempts. */
  delayAfterFailedAttemptMs: Readonly<Record<number, number>>;
  outcomes: Readonly<Record<C, OutcomeEffect>>;
}

export type NextStep = { kind: 'delivered' } | { kind: 'failed' } | { kind: 'retry'; delayMs: number };

/** After attempt number `attempt` ended with `outcome`: delivered, failed for good, or the wait before the next. */
export function nextStepOf<C extends DeliveryOutcomeClass>(table: RetryTable<C>, attempt: number, outcome: C): NextStep {
  const effect = table.outcomes[outcome];
  if (effect === 'delivered') return { kind: 'delivered' };
  if (effect === 'fail' || attempt >= table.maxAttempts) return { kind: 'failed' };
  const delayMs = table.delayAfterFailedAttemptMs[attempt];
  if (delayMs === undefined) throw new Error(`no backoff defined after attempt ${attempt}`);
  return { kind: 'retry', delayMs };
}

/** The classes of a complete HTTP answer (the others of HTTP_OUTCOME_CLASSES are failures to get one). */
export type HttpAnswerClass = Extract<HttpOutcomeClass, 'success' | 'redirect' | 'http_408' | 'http_429' | 'http_5xx' | 'http_4xx'>;

/** The class of a complete HTTP answer. 1xx never reaches here (undici and fetch handle informational answers). */
export function classifyHttpStatus(status: number): HttpAnswerClass {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 408) return 'http_408';
  if (status === 429) return 'http_429';
  if (status >= 500) return 'http_5xx';
  return 'http_4xx';
}
