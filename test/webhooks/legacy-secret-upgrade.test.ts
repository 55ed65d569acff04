// A secret issued before Standard Webhooks (URL-safe base64) keeps its X-Webhook-Signature and
// sends no Standard Webhooks headers; `show` says so; a rotation upgrades it: during the overlap
// X-Webhook-Signature carries both secrets and webhook-signature the new one only.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptSecret } from '../../src/platform/secrets.ts';
import { rotateWebhookSecret, showWebhookEndpoint } from '../../src/webhooks/index.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, givenEndpoint, recordEventFor, type WebhooksBed } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');
let bed: WebhooksBed;
let receiver: Receiver;
beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver();
  bed.startDispatcher();
});
afterAll(async () => {
  await bed?.close();
  await receiver?.close();
});

async function deliverOne(g: Parameters<typeof recordEventFor>[1]) {
  const before = receiver.requests.length;
  const event = await recordEventFor(bed.webhooks, g);
  return (await receiver.waitForRequests(before + 1)).slice(before).find((r) => r.eventId === event.event_id)!;
}

describe('a legacy secret', () => {
  it('signs X-Webhook-Signature only until rotated; then Standard Webhooks headers with the new secret', async () => {
    const g = await givenEndpoint(bed, receiver.url);
    expect((await showWebhookEndpoint(bed.webhooks, g.partnerId)).standard_webhooks).toBe(true);
    const legacy = `whsec_${randomBytes(32).toString('base64url')}`;
    await bed.t.deps.database.updateTable('partners').set({ webhook_secret_encrypted: encryptSecret(legacy, bed.t.deps.secretKey) }).where('id', '=', g.partnerId).execute();
    expect((await showWebhookEndpoint(bed.webhooks, g.partnerId)).standard_webhooks).toBe(false);

    const before = await deliverOne(g);
    expect(before.headers['webhook-signature']).toBeUndefined();
    expect(before.headers['webhook-id']).toBeUndefined();
    expect(stripe.webhooks.constructEvent(before.body, String(before.headers['x-webhook-signature']), legacy)).toBeTruthy();

    const rotated = await rotateWebhookSecret(bed.webhooks, g.partnerId, 3_600_000);
    expect((await showWebhookEndpoint(bed.webhooks, g.partnerId)).standard_webhooks).toBe(true);
    const during = await deliverOne(g);
    expect(String(during.headers['x-webhook-signature']).split(',v1=')).toHaveLength(3);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(rotated.webhook_secret).verify(during.body, during.headers as Record<string, string>)).toBeTruthy();
    expect(stripe.webhooks.constructEvent(during.body, String(during.headers['x-webhook-signature']), legacy)).toBeTruthy();
  }, 20_000);
});
