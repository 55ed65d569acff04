// The address guard whenever erx listens beyond loopback, sandbox included (issue 38 item 6).
// The attack: a public sandbox (ERX_SANDBOX_PUBLIC=1, HOST=0.0.0.0) let a partner point its
// endpoint at an internal address and read the answer in the event's detail. Now the public
// sandbox refuses such an endpoint, a name rebound to one is blocked when connecting, and a
// partner sees response bodies only from attempts that went out through the guard; a sandbox
// on loopback still delivers anywhere (its partner is its developer), but shows no bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts, type HostResolver } from '../../src/webhooks/index.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type WebhooksBed } from './webhooks-given.ts';

const INTERNAL_ANSWER = 'internal-service-secret-42';
const dns = new Map<string, string>();
const resolveFromTable: HostResolver = async (host) => {
  const address = dns.get(host);
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

let internal: Receiver;
beforeAll(async () => {
  internal = await startReceiver(() => ({ status: 503, body: INTERNAL_ANSWER }));
});
afterAll(() => internal?.close());

const partnerGet = (bed: WebhooksBed, g: { partnerId: string; partnerSecret: string }, url: string) =>
  bed.t.app.inject({ method: 'GET', url, headers: { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret } }).then((r) => r.json());

describe('a public sandbox (ERX_SANDBOX_PUBLIC=1, HOST=0.0.0.0)', () => {
  let bed: WebhooksBed;
  beforeAll(async () => {
    bed = await createWebhooksBed({ env: { HOST: '0.0.0.0', ERX_SANDBOX_PUBLIC: '1' }, resolveHost: resolveFromTable });
  });
  afterAll(() => bed?.close());

  it('guards addresses: an endpoint at an internal address is refused', async () => {
    expect(bed.webhooks.guardAddresses).toBe(true);
    expect(bed.t.features.webhooks.guardAddresses).toBe(true);
    const loopback = await givenEndpoint(bed, 'https://hooks.partner.example/x', bed.contextWith({ mode: 'sandbox', resolveHost: async () => [{ address: '93.184.216.34', family: 4 }] }));
    const put = await bed.t.app.inject({
      method: 'PUT',
      url: '/v1/partner/webhook-endpoint',
      headers: { 'x-partner-id': loopback.partnerId, 'x-partner-secret': loopback.partnerSecret, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: `${internal.url}/hooks` }),
    });
    expect(put.statusCode).toBe(422);
    expect(put.json().error.detail).toMatch(/refused while erx listens beyond loopback: 127\.0\.0\.1, a loopback address/);
  });

  it('blocks a name rebound to an internal address when connecting, and the partner reads nothing of it', async () => {
    dns.set('rebound.partner.example', '93.184.216.34');
    const g = await givenEndpoint(bed, `http://rebound.partner.example:${new URL(internal.url).port}/hooks`);
    dns.set('rebound.partner.example', '127.0.0.1');
    bed.startDispatcher();
    const before = internal.requests.length;
    const event = await recordEventFor(bed.webhooks, g);
    const log = await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.status !== 'pending');
    expect(log.deliveries[0]!.attempts.map((a) => a.outcome)).toEqual(['blocked_address']);
    expect(internal.requests.length).toBe(before);
    const detail = await partnerGet(bed, g, `/v1/partner/webhook-events/${event.event_id}`);
    expect(JSON.stringify(detail)).not.toContain(INTERNAL_ANSWER);
  });
});

describe('a sandbox on loopback', () => {
  let bed: WebhooksBed;
  beforeAll(async () => {
    bed = await createWebhooksBed();
  });
  afterAll(() => bed?.close());

  it('delivers to a local address, keeps the answer for the operator, and shows it to the partner only from a guarded attempt', async () => {
    expect(bed.webhooks.guardAddresses).toBe(false);
    const g = await givenEndpoint(bed, `${internal.url}/hooks`);
    bed.startDispatcher();
    const event = await recordEventFor(bed.webhooks, g);
    const log = await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.attempts.length > 0);
    expect(log.deliveries[0]!.attempts[0]).toMatchObject({ status_code: 503, response_body: INTERNAL_ANSWER, address_guarded: 0 });

    const shown = await partnerGet(bed, g, `/v1/partner/webhook-events/${event.event_id}`);
    const attempt = shown.data.deliveries[0].attempts[0];
    expect(attempt).toMatchObject({ status_code: 503, response_body: null });
    expect(JSON.stringify(shown)).not.toContain(INTERNAL_ANSWER);

    // The same attempt marked guarded (as a production or public instance records them) is shown.
    await bed.t.deps.database.updateTable('webhook_attempts').set({ address_guarded: 1 }).where('event_id', '=', event.event_id).where('attempt_number', '=', 1).execute();
    const guarded = await partnerGet(bed, g, `/v1/partner/webhook-events/${event.event_id}`);
    expect(guarded.data.deliveries[0].attempts[0]).toMatchObject({ attempt_number: 1, response_body: INTERNAL_ANSWER });
  });
});
