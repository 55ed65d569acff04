// verifyWebhook of @erx/client on real deliveries: erx's dispatcher posts to a receiver on
// 127.0.0.1, the partner registers the endpoint and rotates its secret through the client, and
// each delivery verifies under both schemes erx sends (Standard Webhooks, X-Webhook-Signature),
// with either secret during the rotation's overlap. Refused: a changed body, another secret, a
// stale or future timestamp, a signature of another event id, no signature at all.
import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErxClient, verifyWebhook, WebhookVerificationError, type WebhookScheme } from '../../packages/erx-client/src/index.ts';
import { deliveryAuthHeaders, generateWebhookSecret } from '../../src/webhooks/webhook-signature.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { startReceiver, type Receiver } from '../webhooks/webhook-receivers.ts';
import { createWebhooksBed, recordEventFor, type WebhooksBed } from '../webhooks/webhooks-given.ts';

let bed: WebhooksBed;
let receiver: Receiver;
let baseUrl: string;
beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver();
  bed.startDispatcher();
  await bed.t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(bed.t.app.server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  await bed?.close();
  await receiver?.close();
});

const SCHEMES: WebhookScheme[] = ['standard-webhooks', 'x-webhook-signature'];

async function nextDelivery(g: GivenIntegration) {
  const before = receiver.requests.length;
  const event = await recordEventFor(bed.webhooks, g);
  await receiver.waitForRequests(before + 1);
  return { event, request: receiver.requests.slice(before).find((r) => r.eventId === event.event_id)! };
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as Error).message;
  }
  throw new Error('verified what it should have refused');
}

describe('verifyWebhook on deliveries from erx', () => {
  it('verifies under both schemes, with either secret during a rotation, and refuses what was tampered with', async () => {
    const g = await givenIntegration(bed.t);
    await bed.t.deps.database.updateTable('organization_partners').set({ validated_at: new Date().toISOString() }).where('partner_id', '=', g.partnerId).execute();
    const client = createErxClient({ baseUrl, ...g });
    const secret = (await client.partner.setWebhookEndpoint({ url: receiver.url })).data.webhook_secret!;

    const first = await nextDelivery(g);
    expect(verifyWebhook(first.request.body, first.request.headers, [secret])).toEqual({ payload: first.event, scheme: 'standard-webhooks', secretIndex: 0 });
    for (const scheme of SCHEMES) expect(verifyWebhook(first.request.body, first.request.headers, secret, { scheme }).payload).toEqual(first.event);

    // The API runs on the test's manual clock, the dispatcher on the system's: align them for the overlap.
    bed.t.clock.advanceSeconds((Date.now() - bed.t.clock.now().getTime()) / 1000);
    const fresh = (await client.partner.rotateWebhookSecret({ overlap_hours: 1 })).data.webhook_secret;
    const during = await nextDelivery(g);
    const { body, headers } = during.request;
    for (const scheme of SCHEMES) {
      expect(verifyWebhook(body, headers, [fresh], { scheme }).payload).toEqual(during.event);
      expect(verifyWebhook(body, headers, [secret], { scheme }).payload).toEqual(during.event);
      expect(verifyWebhook(body, headers, [generateWebhookSecret(), secret], { scheme }).secretIndex).toBe(1);
      expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers as Record<string, string>), [fresh], { scheme }).payload).toEqual(during.event);

      expect(refusal(() => verifyWebhook(body.replace('"data":{', '"data":{"x":1,'), headers, [fresh, secret], { scheme }))).toMatch(/no signature matches/);
      expect(refusal(() => verifyWebhook(body, headers, [generateWebhookSecret()], { scheme }))).toMatch(/no signature matches/);
      const timestamp = Number(headers['webhook-timestamp']) * 1000;
      expect(refusal(() => verifyWebhook(body, headers, [fresh], { scheme, now: timestamp + 301_000 }))).toMatch(/timestamp/);
      expect(refusal(() => verifyWebhook(body, headers, [fresh], { scheme, now: timestamp - 301_000 }))).toMatch(/timestamp/);
      expect(verifyWebhook(body, headers, [fresh], { scheme, now: timestamp + 299_000 }).payload).toEqual(during.event);
    }
    expect(refusal(() => verifyWebhook(body, { ...headers, 'webhook-id': first.event.event_id }, [fresh], { scheme: 'standard-webhooks' }))).toMatch(/no signature matches/);
    expect(refusal(() => verifyWebhook(body, {}, [fresh]))).toMatch(/no webhook signature headers/);
    expect(refusal(() => verifyWebhook(body, headers, []))).toMatch(/no secret/);
  });

  it('a secret issued before Standard Webhooks (URL-safe) verifies under X-Webhook-Signature, the only header it gets', () => {
    const legacy = `whsec_${randomBytes(32).toString('base64url')}`;
    const body = JSON.stringify({ event_type: 'prescription.created', event_id: 'evt_legacy', data: {} });
    const headers = deliveryAuthHeaders('evt_legacy', body, [legacy], Math.floor(Date.now() / 1000));
    expect(Object.keys(headers)).toEqual(['X-Webhook-Signature']);
    expect(verifyWebhook(body, headers, [legacy])).toMatchObject({ scheme: 'x-webhook-signature', secretIndex: 0 });
    expect(refusal(() => verifyWebhook(body, headers, [legacy], { scheme: 'standard-webhooks' }))).toMatch(/no webhook signature headers/);
  });
});
