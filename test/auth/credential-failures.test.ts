// Failed credential checks at /v1/token and /v1/sso are counted apart from the (partner,
// organization) budget: per client address and per claimed pair from one address, in tiers
// that lock longer and longer. Whoever knows a pair's ids and floods it with wrong secrets
// cannot lock its owner out; ids that cannot be valid are refused before any counter.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES_PER_ADDRESS, FAILURES_PER_PAIR_TIERS } from '../../src/auth/credential-failures.ts';
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createMemoryRateLimiter, type RateLimiter } from '../../src/platform/http/rate-limiter.ts';
import { createRateLimiter } from '../../src/runtime.ts';
import { bearer, givenIntegration, tokenHeaders, type GivenIntegration } from '../given.ts';
import { shouldRunWith } from '../service-availability.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** The pair's budget per window, as the operator configures it. */
const BUDGET = 40;
const OWNER_ADDRESS = '192.0.2.10';

const sso = (t: TestApp, headers: Record<string, string>, remoteAddress = OWNER_ADDRESS) =>
  t.app.inject({ method: 'POST', url: '/v1/sso', remoteAddress, headers: { ...headers, 'content-type': 'application/json' }, payload: '{}' });
const token = (t: TestApp, headers: Record<string, string>, remoteAddress = OWNER_ADDRESS) =>
  t.app.inject({ method: 'POST', url: '/v1/token', remoteAddress, headers, payload: { grantType: 'client_credentials', scope: ['create:patient'] } });
const validate = (t: TestApp, g: GivenIntegration, accessToken: string) =>
  t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, remoteAddress: OWNER_ADDRESS, headers: bearer(accessToken, g) });

/** `calls` wrong-secret attempts for the pair, spread over `addresses` addresses; the statuses seen, counted. */
async function attack(t: TestApp, g: GivenIntegration, send: typeof token, calls: number, addresses: string[]): Promise<Record<number, number>> {
  const seen: Record<number, number> = {};
  const wrong = { ...tokenHeaders(g), 'x-partner-secret': 'wrong-secret', 'x-organization-secret': 'wrong-too' };
  for (let i = 0; i < calls; i += 1) {
    const response = await send(t, wrong, addresses[i % addresses.length]);
    seen[response.statusCode] = (seen[response.statusCode] ?? 0) + 1;
    if (response.statusCode === 429) expect(response.json().error.type).toMatch(/\/rate-limit$/);
  }
  return seen;
}

const addressesOf = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}.${i + 1}`);

/** 1,000 bad-secret token calls and 1,000 bad-secret SSO calls, then the owner's whole budget still there. */
async function expectOwnerUnharmedByFailures(t: TestApp, g: GivenIntegration) {
  const perAddress = FAILURES_PER_PAIR_TIERS[0]!.max;
  const tokenAttackers = addressesOf('198.51.100', 20);
  expect(await attack(t, g, token, 1000, tokenAttackers)).toEqual({ 401: 20 * perAddress, 429: 1000 - 20 * perAddress });
  const ssoAttackers = addressesOf('203.0.113', 20);
  expect(await attack(t, g, sso, 1000, ssoAttackers)).toEqual({ 401: 20 * perAddress, 429: 1000 - 20 * perAddress });

  const issued = await token(t, tokenHeaders(g));
  expect(issued.statusCode).toBe(200);
  expect((await sso(t, tokenHeaders(g))).statusCode).toBe(200);
  let served = 2;
  for (; served < BUDGET; served += 1) expect((await validate(t, g, issued.json().data.accessToken)).statusCode).toBe(200);
  // Exactly the configured budget was left: the failures spent none of it.
  expect((await validate(t, g, issued.json().data.accessToken)).statusCode).toBe(429);
}

describe('credential failures, in memory', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let limiter: RateLimiter;
  beforeAll(async () => {
    limiter = createRateLimiter(loadConfig({ ERX_RATE_LIMIT_MAX: String(BUDGET) }), clock, (error) => {
      throw error;
    });
    t = await createTestApp({ rateLimiter: limiter });
  });
  afterAll(() => t.close());

  it("1,000 bad-secret token calls and 1,000 bad-secret SSO calls for a pair leave its owner's token, API and SSO calls and whole budget", async () => {
    await expectOwnerUnharmedByFailures(t, await givenIntegration(t));
  }, 120_000);

  it('locks one address out of a pair for longer each time: a minute, then the quarter hour, then the hour', async () => {
    const g = await givenIntegration(t);
    const wrong = { ...tokenHeaders(g), 'x-organization-secret': 'wrong' };
    const attacker = '203.0.113.200';
    const failTimes = async (n: number) => {
      for (let i = 0; i < n; i += 1) expect((await token(t, wrong, attacker)).statusCode).toBe(401);
    };
    const lockedFor = async () => {
      const refused = await token(t, tokenHeaders(g), attacker); // even the right secrets, from this address
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', statusCode: 429 });
      return Number(refused.headers['retry-after']);
    };
    await failTimes(5);
    const first = await lockedFor();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(60);
    expect((await token(t, tokenHeaders(g))).statusCode).toBe(200); // the owner, elsewhere
    clock.advanceSeconds(61);
    await failTimes(5);
    const second = await lockedFor();
    expect(second).toBeGreaterThan(60);
    expect(second).toBeLessThanOrEqual(15 * 60);
    clock.advanceSeconds(second);
    await failTimes(5);
    expect(await lockedFor()).toBeLessThanOrEqual(60);
    clock.advanceSeconds(61);
    await failTimes(5);
    const third = await lockedFor();
    expect(third).toBeGreaterThan(15 * 60);
    expect(third).toBeLessThanOrEqual(60 * 60);
    expect((await sso(t, tokenHeaders(g), attacker)).statusCode).toBe(429); // /v1/sso shares the lock
    expect((await token(t, tokenHeaders(g))).statusCode).toBe(200);
  });

  it('refuses an address that failed for too many pairs, whatever pair it names next; other addresses go on', async () => {
    const g = await givenIntegration(t);
    const sprayer = '198.51.100.250';
    for (let i = 0; i < FAILURES_PER_ADDRESS.max; i += 1) {
      const response = await token(t, { ...tokenHeaders(g), 'x-organization-id': randomUUID() }, sprayer);
      expect(response.statusCode).toBe(401);
    }
    const refused = await token(t, tokenHeaders(g), sprayer);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(FAILURES_PER_ADDRESS.windowSeconds);
    expect((await sso(t, tokenHeaders(g), sprayer)).statusCode).toBe(429);
    expect((await token(t, tokenHeaders(g))).statusCode).toBe(200);
  });
});

describe('behind a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ERX_TRUST_PROXY: '1' }, rateLimiter: createMemoryRateLimiter({ max: BUDGET, windowSeconds: 60 }, new ManualClock()) });
  });
  afterAll(() => t.close());

  it("counts failures per client address as X-Forwarded-For gives it, not per the proxy's", async () => {
    const g = await givenIntegration(t);
    const wrong = { ...tokenHeaders(g), 'x-organization-secret': 'wrong' };
    const viaProxy = (client: string, headers: Record<string, string> = wrong) => token(t, { ...headers, 'x-forwarded-for': client }, '10.0.0.1');
    for (let i = 0; i < FAILURES_PER_PAIR_TIERS[0]!.max; i += 1) expect((await viaProxy('198.51.100.7')).statusCode).toBe(401);
    expect((await viaProxy('198.51.100.7', tokenHeaders(g))).statusCode).toBe(429);
    expect((await viaProxy('198.51.100.8', tokenHeaders(g))).statusCode).toBe(200);
  });
});

describe('ids that cannot be valid', () => {
  let t: TestApp;
  const limiter = createMemoryRateLimiter({ max: BUDGET, windowSeconds: 60 }, new ManualClock());
  beforeAll(async () => {
    t = await createTestApp({ rateLimiter: limiter });
  });
  afterAll(() => t.close());

  it('are refused with the 401 of wrong credentials before any counter: nothing is stored, nothing locks', async () => {
    const g = await givenIntegration(t);
    const junk = [
      { 'x-partner-id': randomBytes(3500).toString('hex') },
      { 'x-partner-id': 'Not A Slug' },
      { 'x-partner-id': `${g.partnerId}-` },
      { 'x-organization-id': randomBytes(3500).toString('hex') },
      { 'x-organization-id': 'not-a-uuid' },
      { 'x-user-id': `${g.userId}0` },
    ];
    const before = limiter.size;
    for (let i = 0; i < 100; i += 1) {
      const headers = { ...tokenHeaders(g), ...junk[i % junk.length] };
      const tokenResponse = await token(t, headers, '198.51.100.99');
      expect(tokenResponse.statusCode).toBe(401);
      expect(tokenResponse.json().error.detail).toBe('Invalid client credentials');
      const ssoResponse = await sso(t, headers, '198.51.100.99');
      expect(ssoResponse.statusCode).toBe(401);
      expect(ssoResponse.json().error.detail).toBe('Invalid partner credentials');
    }
    expect(limiter.size).toBe(before);
    // The same 401 as a wrong secret, which is counted.
    const wrongSecret = await token(t, { ...tokenHeaders(g), 'x-partner-secret': 'wrong' }, '198.51.100.99');
    const impossible = await token(t, { ...tokenHeaders(g), 'x-partner-id': 'NOPE' }, '198.51.100.99');
    const withoutRequestIds = (body: Record<string, unknown>) => ({ ...body, requestId: undefined, error: { ...(body.error as object), instance: undefined } });
    expect(withoutRequestIds(impossible.json())).toEqual(withoutRequestIds(wrongSecret.json()));
    expect(limiter.size).toBeGreaterThan(before);
    expect((await token(t, tokenHeaders(g), '198.51.100.99')).statusCode).toBe(200);
    const { 'x-user-id': _dropped, ...missing } = tokenHeaders(g);
    expect((await token(t, missing, '198.51.100.99')).statusCode).toBe(400);
  });
});

describe('credential failures, shared through Redis', async () => {
  const run = await shouldRunWith('Redis', REDIS_URL);
  let t: TestApp | undefined;
  let limiter: RateLimiter | undefined;
  afterAll(async () => {
    await t?.close();
    await limiter?.close();
  });

  it.runIf(run)("1,000 bad-secret token calls and 1,000 bad-secret SSO calls for a pair leave its owner's token, API and SSO calls and whole budget", async () => {
    const config = loadConfig({ ERX_RATE_LIMIT_MAX: String(BUDGET), REDIS_URL });
    // A key prefix of this test's own, as createRateLimiter's Redis limiter would use a shared one.
    limiter = createRateLimiter(config, new ManualClock(), (error) => {
      throw error;
    }, `erx-test:${randomBytes(6).toString('hex')}:`);
    t = await createTestApp({ rateLimiter: limiter });
    await expectOwnerUnharmedByFailures(t, await givenIntegration(t));
  }, 120_000);
});
