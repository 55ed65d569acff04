// The SSRF guard in production mode, at connection time: names registered while they resolved
// to public addresses, then answering with an address that must not be reached (DNS rebinding),
// and IP literals. Each attempt is recorded as blocked_address and not retried, and nothing
// ever connects to the listener that stands where the traffic would have gone. (That the guard
// hands public addresses on to the socket is shown in webhook-address-guard.test.ts, without
// reaching the internet from a test.)
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts, pingWebhookEndpoint, type WebhooksContext } from '../../src/webhooks/index.ts';
import { type HostResolver } from '../../src/webhooks/webhook-host-resolution.ts';
import { listenOnLoopback } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type WebhooksBed } from './webhooks-given.ts';

/** Mutable DNS: what each name resolves to right now. */
const dns = new Map<string, string[]>();
const resolveFromTable: HostResolver = async (host) => {
  const addresses = dns.get(host);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let bed: WebhooksBed;
let production: WebhooksContext;
let listener: net.Server;
let port: number;
let connections = 0;
beforeAll(async () => {
  bed = await createWebhooksBed({ mode: 'production', resolveHost: resolveFromTable });
  production = bed.webhooks;
  listener = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  port = await listenOnLoopback(listener);
});
afterAll(async () => {
  await bed.close();
  await new Promise((resolve) => listener.close(resolve));
});

/** Registered while `name` resolved to a public address; then it resolves to `addresses`. */
async function givenReboundEndpoint(name: string, addresses: string[]) {
  dns.set(name, ['93.184.216.34']);
  const g = await givenEndpoint(bed, `https://${name}:${port}/hooks`, production);
  dns.set(name, addresses);
  return g;
}

describe('the SSRF guard in production mode', () => {
  const REBOUND: Array<[string, string[], RegExp]> = [
    ['loopback', ['127.0.0.1'], /127\.0\.0\.1, a loopback address/],
    ['private 10/8', ['10.1.2.3'], /private/],
    ['private 192.168/16', ['192.168.0.10'], /private/],
    ['cloud metadata', ['169.254.169.254'], /169\.254\.169\.254, a link_local address/],
    ['CGNAT', ['100.64.0.1'], /cgnat/],
    ['multicast', ['224.0.0.1'], /multicast/],
    ['unspecified', ['0.0.0.0'], /unspecified/],
    ['IPv6 loopback', ['::1'], /::1, a loopback address/],
    ['IPv6 unique local', ['fd00::5'], /private/],
    ['IPv6 link-local', ['fe80::1'], /link_local/],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1'], /loopback \(IPv4-mapped\)/],
    ['NAT64 metadata', ['64:ff9b::a9fe:a9fe'], /link_local \(NAT64\)/],
    ['public and private together', ['93.184.216.34', '10.0.0.1'], /10\.0\.0\.1, a private address/],
  ];

  it('refuses, when connecting, a name that now resolves to an address that is not public; not retried', async () => {
    const dispatcher = bed.startDispatcher(production);
    const cases = await Promise.all(
      REBOUND.map(async ([kind, addresses, detail], index) => {
        const g = await givenReboundEndpoint(`rebound-${index}.partner.example`, addresses);
        return { kind, detail, event: await recordEventFor(production, g) };
      }),
    );
    for (const { kind, detail, event } of cases) {
      const log = await eventually(() => listWebhookAttempts(production, event.event_id), (l) => l.deliveries[0]!.status !== 'pending');
      const delivery = log.deliveries[0]!;
      expect({ kind, status: delivery.status, outcomes: delivery.attempts.map((a) => a.outcome) }).toEqual({ kind, status: 'failed', outcomes: ['blocked_address'] });
      expect(delivery.attempts[0]!.detail, kind).toMatch(detail);
      expect(delivery.attempts[0]!.status_code).toBeNull();
      expect(delivery.attempts[0]!.sent_by).toBe(dispatcher.id);
    }
    expect(connections).toBe(0);
  });

  it('refuses an IP literal that no lookup would see (registered before the mode changed)', async () => {
    const sandbox = bed.contextWith({ mode: 'sandbox' });
    const literals = [`https://127.0.0.1:${port}/hooks`, `https://[::1]:${port}/hooks`, `https://[::ffff:7f00:1]:${port}/hooks`];
    const events = [];
    for (const url of literals) {
      const g = await givenEndpoint(bed, url, sandbox);
      events.push(await recordEventFor(production, g));
    }
    for (const event of events) {
      const log = await eventually(() => listWebhookAttempts(production, event.event_id), (l) => l.deliveries[0]!.status !== 'pending');
      expect(log.deliveries[0]!.attempts.map((a) => a.outcome)).toEqual(['blocked_address']);
      expect(log.deliveries[0]!.attempts[0]!.detail).toMatch(/loopback/);
    }
    expect(connections).toBe(0);
  });

  it('guards a ping the same way', async () => {
    const g = await givenReboundEndpoint('ping-rebound.partner.example', ['169.254.169.254']);
    const ping = await pingWebhookEndpoint(production, g.partnerId);
    expect(ping).toMatchObject({ ok: false, outcome: 'blocked_address', status_code: null });
    expect(ping.detail).toMatch(/169\.254\.169\.254, a link_local address/);
    expect(connections).toBe(0);
  });
});
