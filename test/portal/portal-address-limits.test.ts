// The portal's public routes, /auth/sso and /tokens/{token}, count each client address's
// requests per minute: past the limit, the 429 error page with Retry-After; other addresses
// and the next window go on.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createMemoryRateLimiter } from '../../src/platform/http/rate-limiter.ts';
import { PUBLIC_ROUTE_LIMITS } from '../../src/portal/portal-address-limits.ts';
import { givenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { mintSsoUrl, pathOf } from './portal-given.ts';

let t: TestApp;
const clock = new ManualClock();
beforeAll(async () => {
  t = await createTestApp({ rateLimiter: createMemoryRateLimiter({ max: 600, windowSeconds: 60 }, clock) });
});
afterAll(() => t.close());

const open = (url: string, remoteAddress: string) => t.app.inject({ method: 'GET', url, remoteAddress });
const guessedSsoLink = () => `/auth/sso?token=${randomBytes(32).toString('base64url')}`;
const guessedTokenPage = () => `/tokens/${randomBytes(16).toString('base64url')}`;

async function expectLimitPerAddress(guess: () => string, max: number, address: string) {
  for (let i = 0; i < max; i += 1) expect((await open(guess(), address)).statusCode).not.toBe(429);
  const refused = await open(guess(), address);
  expect(refused.statusCode).toBe(429);
  expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(refused.body).toContain('Rate limit exceeded');
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return retryAfter;
}

describe('per-address limits on the public portal routes', () => {
  it('refuses an address that opens more sign-in links in a minute than a clinic would, and no other', async () => {
    const g = await givenIntegration(t);
    const retryAfter = await expectLimitPerAddress(guessedSsoLink, PUBLIC_ROUTE_LIMITS['sso-sign-in'].max, '198.51.100.1');
    // Even a valid link waits, from that address; from another it signs in.
    expect((await open(pathOf(await mintSsoUrl(t, g, '/dashboard')), '198.51.100.1')).statusCode).toBe(429);
    expect((await open(pathOf(await mintSsoUrl(t, g, '/dashboard')), '198.51.100.2')).statusCode).toBe(303);
    clock.advanceSeconds(retryAfter);
    expect((await open(pathOf(await mintSsoUrl(t, g, '/dashboard')), '198.51.100.1')).statusCode).toBe(303);
  });

  it('refuses an address that opens more token pages in a minute than a pharmacy would, and no other', async () => {
    await expectLimitPerAddress(guessedTokenPage, PUBLIC_ROUTE_LIMITS['token-page'].max, '203.0.113.1');
    expect((await open(guessedTokenPage(), '203.0.113.2')).statusCode).not.toBe(429);
    // The two routes count apart.
    expect((await open(guessedSsoLink(), '203.0.113.1')).statusCode).toBe(401);
  });
});
