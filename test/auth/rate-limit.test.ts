import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../../src/platform/http/rate-limiter.ts';
import { bearer, givenIntegration, requestToken, tokenHeaders, type GivenIntegration } from '../given.ts';
import { shouldRunWith } from '../service-availability.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function expectBudgetEnforced(t: TestApp, g: GivenIntegration, max: number) {
  const token = await requestToken(t, g, ['create:patient']); // one hit of the budget
  const validate = () => t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
  for (let i = 1; i < max; i += 1) expect((await validate()).statusCode).toBe(200);
  const limited = await validate();
  expect(limited.statusCode).toBe(429);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(limited.json()).toMatchObject({ success: false, statusCode: 429, code: 'RATE_LIMIT_EXCEEDED' });
  expect(limited.json().error.type).toMatch(/\/rate-limit$/);
}

describe('rate limiting per partner and organization (in memory)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  beforeAll(async () => {
    t = await createTestApp({ rateLimiter: createMemoryRateLimiter({ max: 5, windowSeconds: 60 }, clock) });
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After once the budget of the window is spent', async () => {
    await expectBudgetEnforced(t, await givenIntegration(t), 5);
  });

  it('keeps a separate budget for each organization', async () => {
    const g = await givenIntegration(t);
    await expectBudgetEnforced(t, g, 5);
    const fresh = await givenIntegration(t, { partner: { partner_id: g.partnerId, partner_secret: g.partnerSecret } });
    const token = await requestToken(t, fresh, ['create:patient']);
    const response = await t.app.inject({ method: 'GET', url: `/v1/organizations/${fresh.organizationId}/validate`, headers: bearer(token, fresh) });
    expect(response.statusCode).toBe(200);
  });

  it('counts SSO links against the same budget once their credentials check out; wrong secrets spend none of it', async () => {
    const g = await givenIntegration(t);
    const sso = (secret: string) =>
      t.app.inject({ method: 'POST', url: '/v1/sso', headers: { ...tokenHeaders(g), 'x-partner-secret': secret, 'content-type': 'application/json' }, payload: '{}' });
    for (let i = 0; i < 8; i += 1) expect((await sso(i % 2 === 0 ? g.partnerSecret : 'wrong')).statusCode).toBe(i % 2 === 0 ? 200 : 401);
    expect((await sso(g.partnerSecret)).statusCode).toBe(200); // the fifth valid call of a budget of 5
    const limited = await sso(g.partnerSecret);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, statusCode: 429, code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('opens a new window when the old one ends', async () => {
    const g = await givenIntegration(t);
    await expectBudgetEnforced(t, g, 5);
    clock.advanceSeconds(61);
    const token = await requestToken(t, g, ['create:patient']);
    const response = await t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect(response.statusCode).toBe(200);
  });
});

describe('rate limiting shared through Redis', async () => {
  const run = await shouldRunWith('Redis', REDIS_URL);
  const prefix = `erx-test:${randomBytes(4).toString('hex')}:`;
  const limiters: RateLimiter[] = [];
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(limiters.map((l) => l.close()));
  });

  it.runIf(run)('two instances share one budget', async () => {
    const newLimiter = () => {
      const limiter = createRedisRateLimiter({ url: REDIS_URL, max: 4, windowSeconds: 60, keyPrefix: prefix });
      limiters.push(limiter);
      return limiter;
    };
    const first = await createTestApp({ rateLimiter: newLimiter() });
    apps.push(first);
    // A second instance: its own Redis connection, counting against the same key.
    const limiterB = newLimiter();
    const g = await givenIntegration(first);
    const token = await requestToken(first, g, ['create:patient']); // hit 1, instance A
    const viaA = () => first.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect((await viaA()).statusCode).toBe(200); // hit 2
    expect((await limiterB.hit(`${g.partnerId}:${g.organizationId}`)).allowed).toBe(true); // hit 3, instance B
    expect((await viaA()).statusCode).toBe(200); // hit 4
    const limited = await viaA(); // hit 5
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it.runIf(run)('keeps each key as one short key that expires with its window, whatever length it was sent at', async () => {
    const ownPrefix = `${prefix}long:`;
    const limiter = createRedisRateLimiter({ url: REDIS_URL, max: 1, windowSeconds: 60, keyPrefix: ownPrefix });
    limiters.push(limiter);
    const long = randomBytes(3500).toString('hex');
    expect((await limiter.hit(long)).allowed).toBe(true);
    expect((await limiter.peek(long, { max: 1, windowSeconds: 60 })).allowed).toBe(false);
    expect((await limiter.hit(long)).allowed).toBe(false);
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${ownPrefix}*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]!.length).toBeLessThan(ownPrefix.length + 64);
      const ttl = await redis.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      redis.disconnect();
    }
  });

  it('lets requests through when Redis cannot be reached', async () => {
    const errors: Error[] = [];
    const limiter = createRedisRateLimiter({ url: 'redis://127.0.0.1:1', max: 1, windowSeconds: 60, onError: (e) => errors.push(e) });
    limiters.push(limiter);
    expect((await limiter.hit('a')).allowed).toBe(true);
    expect((await limiter.hit('a')).allowed).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
  });
});
