// The partner self-service API's audit entries (actor kind partner, partner.* actions, no
// secret anywhere in the trail) and its credential failures: counted like /v1/token's, so
// repeated wrong secrets from one address are refused with 429 (even the right secret, until
// the window ends), and a success spends the partner's own budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES_PER_PAIR_TIERS } from '../../src/auth/credential-failures.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createMemoryRateLimiter } from '../../src/platform/http/rate-limiter.ts';
import { auditEntriesAfter, expectNoneOfInAuditTrail, lastAuditSeq } from '../audit/audit-helpers.ts';
import { givenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

const BUDGET = 5;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ rateLimiter: createMemoryRateLimiter({ max: BUDGET, windowSeconds: 60 }, new ManualClock()) });
});
afterAll(async () => {
  await t?.close();
});

const call = (headers: Record<string, string>, method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) =>
  t.app.inject({ method, url, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });

describe('partner self-service audit', () => {
  it('records each change as the partner (partner.* actions), never a secret', async () => {
    const g = await givenIntegration(t);
    const as = { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret };
    const seq = await lastAuditSeq(t);
    const set = await call(as, 'PUT', '/v1/partner/webhook-endpoint', { url: 'http://127.0.0.1:9/hooks' });
    expect(set.statusCode).toBe(200);
    const rotated = await call(as, 'POST', '/v1/partner/webhook-endpoint/rotate-secret', {});
    expect(rotated.statusCode).toBe(200);
    const entries = (await auditEntriesAfter(t, seq)).filter((e) => e.action.startsWith('partner.'));
    expect(entries.map((e) => e.action)).toEqual(['partner.webhook_endpoint_set', 'partner.webhook_secret_rotate']);
    for (const entry of entries) expect(entry).toMatchObject({ actor_kind: 'partner', partner_id: g.partnerId });
    const secrets = [set.json().data.webhook_secret, rotated.json().data.webhook_secret, g.partnerSecret] as string[];
    await expectNoneOfInAuditTrail(t, secrets);
  });
});

describe('partner credential failures', () => {
  it('are counted per address and partner: after the first tier, 429 even with the right secret', async () => {
    const g = await givenIntegration(t);
    const wrong = { 'x-partner-id': g.partnerId, 'x-partner-secret': 'not-the-secret' };
    const firstTier = FAILURES_PER_PAIR_TIERS[0]!.max;
    for (let i = 0; i < firstTier; i++) expect((await call(wrong, 'GET', '/v1/partner/webhook-endpoint')).statusCode).toBe(401);
    const locked = await call({ ...wrong, 'x-partner-secret': g.partnerSecret }, 'GET', '/v1/partner/webhook-endpoint');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a success spends the partner budget: 429 once spent', async () => {
    const g = await givenIntegration(t);
    const as = { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret };
    for (let i = 0; i < BUDGET; i++) expect((await call(as, 'GET', '/v1/partner/event-types')).statusCode).toBe(200);
    expect((await call(as, 'GET', '/v1/partner/event-types')).statusCode).toBe(429);
  });
});
