// erx_rate_limit_refusals_total, by the limit that refused: the (partner, organization) budget,
// the credential-failure lockout, and the portal's per-address limits. Each counts exactly the
// 429s the client saw, on a serving process with a small budget (ERX_RATE_LIMIT_MAX=2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestToken, scrapeMetrics, startMeasuredServer, tokenRequest, type MeasuredServer } from './metrics-scrape.ts';

let measured: MeasuredServer;

beforeAll(async () => {
  measured = await startMeasuredServer({ ERX_RATE_LIMIT_MAX: '2' });
});

afterAll(async () => {
  await measured?.close();
});

async function refusals(kind: string): Promise<number> {
  return (await scrapeMetrics(measured.metricsUrl)).value('erx_rate_limit_refusals_total', { kind }) ?? 0;
}

/** Sends `count` requests one after another; returns how many answered 429. */
async function count429(count: number, send: () => Promise<Response>): Promise<number> {
  let refused = 0;
  for (let i = 0; i < count; i++) {
    const response = await send();
    await response.arrayBuffer();
    if (response.status === 429) refused += 1;
  }
  return refused;
}

describe('rate-limit refusals in the metrics', () => {
  it('counts the budget, credential-failure and portal refusals apart, each exactly', async () => {
    const { server, seed } = measured;
    const token = await requestToken(measured); // spends one of the pair's two requests
    const budget = await count429(4, () =>
      fetch(`${server.url}/v1/organizations/${seed.organization_id}/validate`, {
        headers: { authorization: `Bearer ${token}`, 'x-organization-secret': seed.organization_secret },
      }),
    );
    expect(budget).toBe(3);

    // Wrong partner secrets: the claimed pair is locked out from this address after a few.
    const lockedOut = await count429(10, () => fetch(`${server.url}/v1/token`, tokenRequest(seed, 'wrong-secret')));
    expect(lockedOut).toBeGreaterThan(0);

    // The portal's sign-in page allows 60 requests a minute per address.
    const portal = await count429(62, () => fetch(`${server.url}/auth/sso?token=not-a-token`, { redirect: 'manual' }));
    expect(portal).toBe(2);

    expect(await refusals('budget')).toBe(budget);
    expect(await refusals('credential_failures')).toBe(lockedOut);
    expect(await refusals('portal')).toBe(portal);
  });
});
