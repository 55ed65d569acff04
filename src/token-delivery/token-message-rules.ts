// Token delivery's retry table on the delivery toolkit (platform/delivery/delivery-outcomes.ts):
// the classes its two channels can produce and what each means. Twilio answers over HTTP and is
// classed as any HTTP answer (429, 408 and 5xx are retried, other 4xx are not, a redirect is
// not followed); an SMTP server's reply is not HTTP: 4xx means try later (`deferred`), 5xx
// refused for good (`refused`). The numbers are the webhook ones (three attempts, 1 s then 2 s):
// chosen for the same reason (a patient waits at the counter), not borrowed from them.
import type { HttpOutcomeClass, RetryTable } from '../platform/delivery/index.ts';

export type TokenOutcomeClass = Exclude<HttpOutcomeClass, 'dns' | 'tls' | 'blocked_address'> | 'refused' | 'deferred' | 'unconfigured';

export const TOKEN_MESSAGE_RULES = {
  maxAttempts: 3,
  delayAfterFailedAttemptMs: { 1: 1_000, 2: 2_000 },
  outcomes: {
    success: 'delivered',
    http_4xx: 'fail',
    http_5xx: 'retry',
    http_408: 'retry',
    http_429: 'retry',
    redirect: 'fail',
    timeout: 'retry',
    connect: 'retry',
    deferred: 'retry',
    refused: 'fail',
    unconfigured: 'fail',
  },
} as const satisfies RetryTable<TokenOutcomeClass>;
