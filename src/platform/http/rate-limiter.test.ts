import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { createMemoryRateLimiter } from './rate-limiter.ts';

describe('in-memory rate limiter', () => {
  it('allows max hits per window per key, then says how long to wait', async () => {
    const clock = new ManualClock();
    const limiter = createMemoryRateLimiter({ max: 3, windowSeconds: 10 }, clock);
    for (let i = 0; i < 3; i += 1) expect((await limiter.hit('a')).allowed).toBe(true);
    clock.advanceSeconds(4);
    expect(await limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    expect((await limiter.hit('b')).allowed).toBe(true);
    clock.advanceSeconds(6);
    expect((await limiter.hit('a')).allowed).toBe(true);
  });

  it("counts a key against the rule it is hit with, and peeks without counting", async () => {
    const clock = new ManualClock();
    const limiter = createMemoryRateLimiter({ max: 100, windowSeconds: 10 }, clock);
    const rule = { max: 2, windowSeconds: 60 };
    expect(await limiter.peek('x', rule)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect(limiter.size).toBe(0);
    await limiter.hit('x', rule);
    for (let i = 0; i < 5; i += 1) expect((await limiter.peek('x', rule)).allowed).toBe(true);
    await limiter.hit('x', rule);
    clock.advanceSeconds(20);
    expect(await limiter.peek('x', rule)).toEqual({ allowed: false, retryAfterSeconds: 40 });
    clock.advanceSeconds(40);
    expect((await limiter.peek('x', rule)).allowed).toBe(true);
  });

  it('holds no more than its cap of keys however many distinct ones it is sent, however long, and keeps counting the newest', async () => {
    const clock = new ManualClock();
    const limiter = createMemoryRateLimiter({ max: 1, windowSeconds: 60 }, clock, 1_000);
    let largest = 0;
    for (let i = 0; i < 20_000; i += 1) {
      await limiter.hit(`${i}:${randomBytes(16).toString('hex').repeat(200)}`);
      largest = Math.max(largest, limiter.size);
    }
    expect(largest).toBe(1_000);
    expect(limiter.size).toBeGreaterThanOrEqual(500);
    const recent = 'recent-key';
    await limiter.hit(recent);
    for (let i = 0; i < 499; i += 1) await limiter.hit(`filler-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(1_000);
    expect((await limiter.hit(recent)).allowed).toBe(false); // still counted: half the cap of newer keys did not evict it
  });

  it('keeps a key that is hit again, however many keys come after it', async () => {
    const limiter = createMemoryRateLimiter({ max: 1_000_000, windowSeconds: 60 }, new ManualClock(), 100);
    for (let i = 0; i < 5_000; i += 1) {
      await limiter.hit('busy');
      await limiter.hit(`passer-by-${i}`);
    }
    expect(await limiter.peek('busy', { max: 5_000, windowSeconds: 60 })).toMatchObject({ allowed: false });
    expect(limiter.size).toBeLessThanOrEqual(100);
  });
});
