// PUT /v1/partner/webhook-endpoint in production mode follows the operator's rules through the
// same service function: https only, and a host that resolves to a private address is refused
// (the address guard); a public https URL is accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_MODULES } from '../../src/app.ts';
import { partnerWebhookRoutes, type HostResolver } from '../../src/webhooks/index.ts';
import { givenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

const addresses: Record<string, string> = { 'hooks.partner.example': '93.184.216.34', 'internal.partner.example': '10.0.0.5' };
const resolveFromTable: HostResolver = async (hostname) => {
  const address = addresses[hostname];
  if (!address) throw Object.assign(new Error(`unknown host ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

let t: TestApp;
beforeAll(async () => {
  // The app's own API, except that the partner routes serve a production-mode webhooks context.
  const api = API_ROUTE_MODULES.filter((mount) => !String(mount).includes('partnerWebhookRoutes'));
  t = await createTestApp({
    surfaces: { api: [...api, (app, { webhooks }) => partnerWebhookRoutes(app, { ...webhooks, mode: 'production', guardAddresses: true, resolveHost: resolveFromTable })], portal: [] },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('PUT /v1/partner/webhook-endpoint in production mode', () => {
  it('refuses http and private addresses, accepts a public https URL', async () => {
    const g = await givenIntegration(t);
    const put = (url: string) =>
      t.app.inject({ method: 'PUT', url: '/v1/partner/webhook-endpoint', headers: { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret, 'content-type': 'application/json' }, payload: JSON.stringify({ url }) });
    for (const [url, detail] of [
      ['http://hooks.partner.example/erx', /must be https in production mode/],
      ['https://internal.partner.example/erx', /refused in production mode/],
      ['https://127.0.0.1/erx', /refused in production mode/],
    ] as const) {
      const r = await put(url);
      expect(r.statusCode, url).toBe(422);
      expect(r.json().error.detail).toMatch(detail);
    }
    const ok = await put('https://hooks.partner.example/erx');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.webhook_url).toBe('https://hooks.partner.example/erx');
  });
});
