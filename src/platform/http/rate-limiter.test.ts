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
});
