// Endpoints and secrets: the secret is issued once (whsec_ + 32 random bytes), stored only
// encrypted, never shown again; URL rules per mode; partner create --webhook-url registers the
// same way; a disabled endpoint's deliveries wait and go out once it is enabled again.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner } from '../../src/onboarding/index.ts';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { listWebhookAttempts, parseOverlap, rotateWebhookSecret, setWebhookEndpoint, setWebhookEndpointEnabled, showWebhookEndpoint } from '../../src/webhooks/index.ts';
import { type HostResolver } from '../../src/webhooks/webhook-host-resolution.ts';
import { givenPartner } from '../given.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, waitForAPoll, type WebhooksBed } from './webhooks-given.ts';

const DNS: Record<string, string[]> = {
  'hooks.partner.example': ['93.184.216.34', '2606:2800:220:1::1'],
  'internal.partner.example': ['10.20.30.40'],
  'split.partner.example': ['93.184.216.34', '192.168.1.10'],
  localhost: ['127.0.0.1', '::1'],
};
const resolveFromTable: HostResolver = async (host) => {
  const addresses = DNS[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let bed: WebhooksBed;
let receiver: Receiver;
beforeAll(async () => {
  bed = await createWebhooksBed({ env: { ERX_WEBHOOK_POLL_MS: '100' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await bed.close();
  await receiver.close();
});

async function storedSecretColumn(partnerId: string): Promise<string | null> {
  const row = await bed.t.deps.database.selectFrom('partners').select('webhook_secret_encrypted').where('id', '=', partnerId).executeTakeFirstOrThrow();
  return row.webhook_secret_encrypted;
}

describe('registering an endpoint', () => {
  it('issues a whsec_ secret of 32 random bytes once, stores it only encrypted, and never shows it again', async () => {
    const { partner_id } = await givenPartner(bed.t);
    const first = await setWebhookEndpoint(bed.webhooks, partner_id, 'http://127.0.0.1:9/a');
    expect(first.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.webhook_secret!.slice(6), 'base64')).toHaveLength(32);
    const stored = (await storedSecretColumn(partner_id))!;
    expect(stored).not.toContain(first.webhook_secret!.slice(6));
    expect(decryptSecret(stored, bed.t.deps.secretKey)).toBe(first.webhook_secret);

    const second = await setWebhookEndpoint(bed.webhooks, partner_id, 'http://127.0.0.1:9/b');
    expect(second.webhook_secret).toBeNull();
    expect(await storedSecretColumn(partner_id)).toBe(stored);
    const view = await showWebhookEndpoint(bed.webhooks, partner_id);
    expect(view).toMatchObject({ partner_id, webhook_url: 'http://127.0.0.1:9/b', enabled: true, previous_secret_valid_until: null });
    expect(JSON.stringify(view)).not.toMatch(/whsec_|v1\./);
  });

  it('partner create --webhook-url registers the endpoint the same way', async () => {
    const created = await createPartner(bed.t.features.onboarding, { partnerId: `hooked-${Date.now()}`, webhookUrl: 'http://localhost:8080/hooks' });
    expect(created.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decryptSecret((await storedSecretColumn(created.partner_id))!, bed.t.deps.secretKey)).toBe(created.webhook_secret);
    const view = await showWebhookEndpoint(bed.webhooks, created.partner_id);
    expect(view.webhook_url).toBe('http://localhost:8080/hooks');
    expect(view.secret_issued_at).not.toBeNull();
  });

  it.each([
    ['not a url', /not a valid URL/],
    ['ftp://files.example/hooks', /must be http\(s\)/],
    ['https://user:pass@hooks.example/x', /must not carry a user name or password/],
    [`https://hooks.example/${'x'.repeat(2050)}`, /longer than 2048/],
  ])('refuses %j in sandbox mode', async (url, message) => {
    const { partner_id } = await givenPartner(bed.t);
    await expect(setWebhookEndpoint(bed.webhooks, partner_id, url)).rejects.toThrow(message);
  });

  it('sandbox allows http and loopback, so a partner can test on their own machine', async () => {
    const { partner_id } = await givenPartner(bed.t);
    for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost/hooks', 'http://[::1]:8080/x', 'https://10.0.0.8/hooks']) {
      expect((await setWebhookEndpoint(bed.webhooks, partner_id, url)).webhook_url).toBe(new URL(url).href);
    }
  });

  it.each([
    ['http://hooks.partner.example/x', /must be https in production mode/],
    ['https://127.0.0.1/x', /refused in production mode: 127\.0\.0\.1, a loopback address/],
    ['https://[::ffff:169.254.169.254]/x', /link_local \(IPv4-mapped\)/],
    ['https://internal.partner.example/x', /internal\.partner\.example resolves to 10\.20\.30\.40, a private address/],
    ['https://split.partner.example/x', /resolves to 192\.168\.1\.10, a private address/],
    ['https://localhost/x', /localhost resolves to 127\.0\.0\.1, a loopback address/],
    ['https://unknown.partner.example/x', /cannot be resolved \(ENOTFOUND\)/],
  ])('production refuses %s', async (url, message) => {
    const production = bed.contextWith({ mode: 'production', resolveHost: resolveFromTable });
    const { partner_id } = await givenPartner(bed.t);
    await expect(setWebhookEndpoint(production, partner_id, url)).rejects.toThrow(message);
    expect((await showWebhookEndpoint(production, partner_id)).webhook_url).toBeNull();
  });

  it('production accepts https to a host that resolves only to public addresses', async () => {
    const production = bed.contextWith({ mode: 'production', resolveHost: resolveFromTable });
    const { partner_id } = await givenPartner(bed.t);
    expect((await setWebhookEndpoint(production, partner_id, 'https://hooks.partner.example/erx')).webhook_secret).toMatch(/^whsec_/);
  });

  it('fails clearly for an unknown partner, and rotation needs an endpoint first', async () => {
    await expect(setWebhookEndpoint(bed.webhooks, 'nobody', 'http://127.0.0.1/x')).rejects.toThrow('partner nobody not found');
    await expect(showWebhookEndpoint(bed.webhooks, 'nobody')).rejects.toThrow('partner nobody not found');
    await expect(setWebhookEndpointEnabled(bed.webhooks, 'nobody', false)).rejects.toThrow('partner nobody not found');
    const { partner_id } = await givenPartner(bed.t);
    await expect(rotateWebhookSecret(bed.webhooks, partner_id, 1000)).rejects.toThrow(/has no webhook endpoint yet/);
  });

  it.each([
    ['24h', 86_400_000],
    ['30m', 1_800_000],
    ['7d', 604_800_000],
    ['0s', 0],
    ['45s', 45_000],
  ])('reads the overlap %s', (text, ms) => {
    expect(parseOverlap(text)).toBe(ms);
  });

  it.each(['', '24', '1w', '-1h', '31d', 'h'])('refuses the overlap %j', (text) => {
    expect(() => parseOverlap(text)).toThrow(/--overlap must be a duration/);
  });
});

describe('disabling an endpoint', () => {
  it('holds its deliveries pending, and sends them once it is enabled again', async () => {
    const dispatcher = bed.startDispatcher();
    const g = await givenEndpoint(bed, receiver.url);
    expect(await setWebhookEndpointEnabled(bed.webhooks, g.partnerId, false)).toEqual({ partner_id: g.partnerId, enabled: false, changed: true });
    expect((await setWebhookEndpointEnabled(bed.webhooks, g.partnerId, false)).changed).toBe(false);
    const witness = await givenEndpoint(bed, receiver.url);
    const event = await recordEventFor(bed.webhooks, g);
    // Its own wake-up and then polls pass without an attempt.
    await waitForAPoll(bed.t.deps.database, witness, receiver);
    await waitForAPoll(bed.t.deps.database, witness, receiver);
    expect(receiver.requests.filter((r) => r.eventId === event.event_id)).toHaveLength(0);
    expect((await listWebhookAttempts(bed.webhooks, event.event_id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: [] });
    expect((await showWebhookEndpoint(bed.webhooks, g.partnerId)).deliveries.pending).toBe(1);

    const enabledAt = Date.now();
    await setWebhookEndpointEnabled(bed.webhooks, g.partnerId, true);
    const log = await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.status === 'delivered');
    expect(Date.parse(log.deliveries[0]!.attempts[0]!.started_at) - enabledAt).toBeLessThan(500);
    expect(receiver.requests.filter((r) => r.eventId === event.event_id)).toHaveLength(1);
    expect(dispatcher.id).toMatch(/:\d+:[0-9a-f]{6}$/);
  });

  it('a partner without an endpoint keeps its deliveries until one is registered', async () => {
    bed.startDispatcher();
    const g = await givenEndpoint(bed, receiver.url);
    await sql`update partners set webhook_url = null where id = ${g.partnerId}`.execute(bed.t.deps.database);
    const witness = await givenEndpoint(bed, receiver.url);
    const event = await recordEventFor(bed.webhooks, g);
    await waitForAPoll(bed.t.deps.database, witness, receiver);
    expect(receiver.requests.filter((r) => r.eventId === event.event_id)).toHaveLength(0);
    await setWebhookEndpoint(bed.webhooks, g.partnerId, receiver.url);
    await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.status === 'delivered');
  });
});
