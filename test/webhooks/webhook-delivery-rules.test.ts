// The spec's retry rules, read from the one table: which answers are retried, after how long,
// and when a delivery ends.
import { describe, expect, it } from 'vitest';
import { classifyHttpStatus, nextStepAfter, OUTCOME_CLASSES, WEBHOOK_DELIVERY_RULES, type OutcomeClass } from '../../src/webhooks/webhook-delivery-rules.ts';
import { EndpointWindow } from '../../src/webhooks/webhook-endpoint-window.ts';

describe('the delivery rules table', () => {
  it("holds the spec's numbers: 3 attempts, 1 s then 2 s, 10 s per attempt", () => {
    expect(WEBHOOK_DELIVERY_RULES.maxAttempts).toBe(3);
    expect(WEBHOOK_DELIVERY_RULES.delayAfterFailedAttemptMs).toEqual({ 1: 1000, 2: 2000 });
    expect(WEBHOOK_DELIVERY_RULES.attemptTimeoutMs).toBe(10_000);
    expect(Object.keys(WEBHOOK_DELIVERY_RULES.outcomes).sort()).toEqual([...OUTCOME_CLASSES].sort());
  });

  it.each([
    [200, 'success'],
    [201, 'success'],
    [204, 'success'],
    [299, 'success'],
    [301, 'redirect'],
    [302, 'redirect'],
    [307, 'redirect'],
    [308, 'redirect'],
    [400, 'http_4xx'],
    [401, 'http_4xx'],
    [404, 'http_4xx'],
    [408, 'http_408'],
    [410, 'http_4xx'],
    [422, 'http_4xx'],
    [429, 'http_429'],
    [500, 'http_5xx'],
    [502, 'http_5xx'],
    [503, 'http_5xx'],
    [504, 'http_5xx'],
    [599, 'http_5xx'],
  ])('HTTP %i is %s', (status, outcome) => {
    expect(classifyHttpStatus(status)).toBe(outcome);
  });

  const retried: OutcomeClass[] = ['http_5xx', 'http_408', 'http_429', 'timeout', 'dns', 'connect', 'tls'];
  const notRetried: OutcomeClass[] = ['http_4xx', 'redirect', 'blocked_address'];

  it.each(retried)('%s is retried: 1 s after attempt 1, 2 s after attempt 2, failed after attempt 3', (outcome) => {
    expect(nextStepAfter(1, outcome)).toEqual({ kind: 'retry', delayMs: 1000 });
    expect(nextStepAfter(2, outcome)).toEqual({ kind: 'retry', delayMs: 2000 });
    expect(nextStepAfter(3, outcome)).toEqual({ kind: 'failed' });
  });

  it.each(notRetried)('%s fails the delivery at once', (outcome) => {
    for (const attempt of [1, 2, 3]) expect(nextStepAfter(attempt, outcome)).toEqual({ kind: 'failed' });
  });

  it('a 2xx ends the delivery at any attempt', () => {
    for (const attempt of [1, 2, 3]) expect(nextStepAfter(attempt, 'success')).toEqual({ kind: 'delivered' });
  });

  it('every outcome class is either retried, not retried or success', () => {
    expect([...retried, ...notRetried, 'success'].sort()).toEqual([...OUTCOME_CLASSES].sort());
  });
});

describe("an endpoint's in-flight window", () => {
  it('halves on each 429 down to 1, and grows by one per success up to its maximum', () => {
    const window = new EndpointWindow(16);
    window.started(16);
    expect(window.room).toBe(0);
    window.finished('http_429');
    expect([window.size, window.room]).toEqual([8, 0]);
    for (let i = 0; i < 6; i++) window.finished('http_429');
    expect([window.size, window.inFlight, window.room]).toEqual([1, 9, 0]);
    for (let i = 0; i < 9; i++) window.finished('http_5xx');
    expect([window.size, window.room]).toEqual([1, 1]);
    window.started(1);
    window.finished('success');
    expect(window.size).toBe(2);
    for (let i = 0; i < 30; i++) {
      window.started(1);
      window.finished('success');
    }
    expect([window.size, window.room]).toEqual([16, 16]);
  });
});
