// The toolkit's pure parts, as tables of cases: a retry table's decisions, the HTTP classes,
// the wake payloads, and the one start and stop of every background loop.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startBackgroundLoops, type BackgroundLoop } from './background-loops.ts';
import { hasLeaseForAttempt, LEASE_MARGIN_MS, leaseDurationMs } from './delivery-lease.ts';
import { classifyHttpStatus, DELIVERY_OUTCOME_CLASSES, nextStepOf, type RetryTable } from './delivery-outcomes.ts';
import { decodeWakePayload, DeliveryWakeups, encodeWakePayload, MAX_KEYS_PER_NOTIFY } from './delivery-wakeups.ts';

const table = {
  maxAttempts: 3,
  delayAfterFailedAttemptMs: { 1: 1_000, 2: 2_000 },
  outcomes: { success: 'delivered', refused: 'fail', deferred: 'retry' },
} as const satisfies RetryTable<'success' | 'refused' | 'deferred'>;

describe('a retry table', () => {
  it.each([
    [1, 'success', { kind: 'delivered' }],
    [1, 'refused', { kind: 'failed' }],
    [1, 'deferred', { kind: 'retry', delayMs: 1_000 }],
    [2, 'deferred', { kind: 'retry', delayMs: 2_000 }],
    [3, 'deferred', { kind: 'failed' }],
  ] as const)('after attempt %i ended %s: %o', (attempt, outcome, step) => {
    expect(nextStepOf(table, attempt, outcome)).toEqual(step);
  });

  it('refuses a table with no pause after an attempt that may be retried', () => {
    expect(() => nextStepOf({ ...table, delayAfterFailedAttemptMs: { 1: 1_000 } }, 2, 'deferred')).toThrow('no backoff defined after attempt 2');
  });

  it('has channel-neutral classes beside the HTTP ones', () => {
    expect(DELIVERY_OUTCOME_CLASSES).toEqual(expect.arrayContaining(['http_4xx', 'refused', 'deferred', 'unconfigured']));
    expect(new Set(DELIVERY_OUTCOME_CLASSES).size).toBe(DELIVERY_OUTCOME_CLASSES.length);
  });

  it.each([
    [204, 'success'],
    [302, 'redirect'],
    [404, 'http_4xx'],
    [408, 'http_408'],
    [429, 'http_429'],
    [503, 'http_5xx'],
  ] as const)('classes HTTP %i as %s', (status, outcome) => {
    expect(classifyHttpStatus(status)).toBe(outcome);
  });
});

describe('a lease', () => {
  it('lasts two timeouts and the margin; an attempt starts only with a timeout and the margin left', () => {
    expect(leaseDurationMs(2_000)).toBe(4_000 + LEASE_MARGIN_MS);
    expect(hasLeaseForAttempt(10_000 + 2_000 + LEASE_MARGIN_MS, 10_000, 2_000)).toBe(true);
    expect(hasLeaseForAttempt(10_000 + 2_000 + LEASE_MARGIN_MS - 1, 10_000, 2_000)).toBe(false);
  });
});

describe('the wake-up after commit', () => {
  it('wakes local runners with the keys, and broadcasts them, "all" past the payload cap', async () => {
    const sent: string[] = [];
    const wakeups = new DeliveryWakeups(async (keys) => void sent.push(encodeWakePayload(keys)), () => {});
    const heard: string[][] = [];
    const unsubscribe = wakeups.onWake((keys) => heard.push([...keys]));
    wakeups.committed(['a', 'b']);
    wakeups.committed([]);
    unsubscribe();
    wakeups.committed(['c']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([['a', 'b']]);
    expect(sent.join(',').split(',').sort()).toEqual(['a', 'b', 'c']);
    const many = Array.from({ length: MAX_KEYS_PER_NOTIFY + 1 }, (_, i) => `k${i}`);
    expect(decodeWakePayload(encodeWakePayload(many))).toBe('all');
    expect(decodeWakePayload(encodeWakePayload(['x', 'y']))).toEqual(['x', 'y']);
  });
});

describe('the background loops', () => {
  const logger = pino({ level: 'silent' });

  it('start with one runner id and all stop together, each awaited, even when one fails to stop', async () => {
    const events: string[] = [];
    const loop = (name: string, fails = false): BackgroundLoop => ({
      name,
      start: ({ runnerId }) => {
        events.push(`${name} started as ${runnerId}`);
        return {
          stop: async () => {
            await new Promise((resolve) => setTimeout(resolve, 10));
            events.push(`${name} drained`);
            if (fails) throw new Error(`${name} could not stop`);
          },
        };
      },
    });
    const running = startBackgroundLoops([loop('a'), loop('b', true), loop('c')], logger, { runnerId: 'host:1:abc' });
    expect([...running.loops.keys()]).toEqual(['a', 'b', 'c']);
    await expect(running.stop()).rejects.toThrow('b could not stop');
    expect(events.filter((e) => e.endsWith('started as host:1:abc'))).toHaveLength(3);
    expect(events.filter((e) => e.endsWith('drained')).sort()).toEqual(['a drained', 'b drained', 'c drained']);
  });

  it('stops what it started when a later loop fails to start', async () => {
    const stopped: string[] = [];
    const fine: BackgroundLoop = { name: 'fine', start: () => ({ stop: async () => void stopped.push('fine') }) };
    const broken: BackgroundLoop = { name: 'broken', start: () => { throw new Error('cannot start'); } };
    expect(() => startBackgroundLoops([fine, broken], logger)).toThrow('cannot start');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toEqual(['fine']);
  });
});
