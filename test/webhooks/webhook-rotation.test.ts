// Secret rotation as the receiver sees it: before, one v1 with the old secret; during the
// overlap, `t=..,v1=<new>,v1=<old>` (either secret verifies with the stripe package); after it,
// only the new secret signs.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateWebhookSecret, setWebhookEndpoint, showWebhookEndpoint } from '../../src/webhooks/index.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type WebhooksBed } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');
let bed: WebhooksBed;
let receiver: Receiver;
beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver();
  bed.startDispatcher();
});
afterAll(async () => {
  await bed.close();
  await receiver.close();
});

const signaturesOf = (header: unknown) => String(header).split(',').filter((part) => part.startsWith('v1='));

async function deliverOne(g: Parameters<typeof recordEventFor>[1]) {
  const before = receiver.requests.length;
  const event = await recordEventFor(bed.webhooks, g);
  const [request] = (await receiver.waitForRequests(before + 1)).slice(before);
  expect(request!.eventId).toBe(event.event_id);
  return request!;
}

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, then with the new one only', async () => {
    const g = await givenEndpoint(bed, receiver.url);
    const old = g.secret;
    const before = await deliverOne(g);
    expect(signaturesOf(before.headers['x-webhook-signature'])).toHaveLength(1);
    expect(stripe.webhooks.constructEvent(before.body, String(before.headers['x-webhook-signature']), old)).toBeTruthy();

    const rotated = await rotateWebhookSecret(bed.webhooks, g.partnerId, 1500);
    const fresh = rotated.webhook_secret;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(fresh).not.toBe(old);
    expect(Date.parse(rotated.previous_secret_valid_until!) - Date.now()).toBeGreaterThan(1000);

    const during = await deliverOne(g);
    const header = String(during.headers['x-webhook-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(during.body, header, fresh)).toBeTruthy();
    expect(stripe.webhooks.constructEvent(during.body, header, old)).toBeTruthy();
    // The new secret's signature comes first.
    const t = /^t=(\d+)/.exec(header)![1];
    const onlyFirst = `t=${t},${signaturesOf(header)[0]}`;
    expect(stripe.webhooks.constructEvent(during.body, onlyFirst, fresh)).toBeTruthy();

    await eventually(() => showWebhookEndpoint(bed.webhooks, g.partnerId), (view) => view.previous_secret_valid_until === null, 5_000);
    const after = await deliverOne(g);
    const afterHeader = String(after.headers['x-webhook-signature']);
    expect(signaturesOf(afterHeader)).toHaveLength(1);
    expect(stripe.webhooks.constructEvent(after.body, afterHeader, fresh)).toBeTruthy();
    expect(() => stripe.webhooks.constructEvent(after.body, afterHeader, old)).toThrow(/No signatures found matching/);
  }, 15_000);

  it('without an overlap the old secret stops signing at once', async () => {
    const g = await givenEndpoint(bed, receiver.url);
    const rotated = await rotateWebhookSecret(bed.webhooks, g.partnerId, 0);
    expect(rotated.previous_secret_valid_until).toBeNull();
    const request = await deliverOne(g);
    const header = String(request.headers['x-webhook-signature']);
    expect(signaturesOf(header)).toHaveLength(1);
    expect(stripe.webhooks.constructEvent(request.body, header, rotated.webhook_secret)).toBeTruthy();
    expect(() => stripe.webhooks.constructEvent(request.body, header, g.secret)).toThrow(/No signatures found matching/);
  });

  it('a second rotation within the overlap keeps two secrets: the newest and the one it replaced', async () => {
    const g = await givenEndpoint(bed, receiver.url);
    const second = await rotateWebhookSecret(bed.webhooks, g.partnerId, 60_000);
    const third = await rotateWebhookSecret(bed.webhooks, g.partnerId, 60_000);
    const request = await deliverOne(g);
    const header = String(request.headers['x-webhook-signature']);
    expect(signaturesOf(header)).toHaveLength(2);
    expect(stripe.webhooks.constructEvent(request.body, header, third.webhook_secret)).toBeTruthy();
    expect(stripe.webhooks.constructEvent(request.body, header, second.webhook_secret)).toBeTruthy();
    expect(() => stripe.webhooks.constructEvent(request.body, header, g.secret)).toThrow(/No signatures found matching/);
  });

  it('changing the URL keeps the secret and never shows it again', async () => {
    const g = await givenEndpoint(bed, 'http://127.0.0.1:9/old');
    const changed = await setWebhookEndpoint(bed.webhooks, g.partnerId, receiver.url);
    expect(changed).toEqual({ partner_id: g.partnerId, webhook_url: receiver.url, previous_url: 'http://127.0.0.1:9/old', webhook_secret: null });
    const request = await deliverOne(g);
    expect(stripe.webhooks.constructEvent(request.body, String(request.headers['x-webhook-signature']), g.secret)).toBeTruthy();
  });
});
