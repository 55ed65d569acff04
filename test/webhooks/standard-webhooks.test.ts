// Standard Webhooks beside the spec's X-Webhook-Signature: one secret, as erx issues it, verifies
// a delivery under stripe-node's constructEvent (the spec's scheme) and under the official
// `standardwebhooks` library, for 1,000 generated secrets and through a rotation's overlap. A
// secret issued before (URL-safe base64) keeps X-Webhook-Signature and gets no Standard Webhooks
// signature, since the official verifier cannot use it.
import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { deliveryAuthHeaders, generateWebhookSecret, isStandardWebhooksSecret, standardSignatureOf } from '../../src/webhooks/webhook-signature.ts';

const stripe = new Stripe('sk_test_unused');
const nowSeconds = () => Math.floor(Date.now() / 1000);
const legacySecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
const bodyOf = (n: number) => JSON.stringify({ event_type: 'prescription.created', event_id: `evt_${n.toString(16).padStart(32, '0')}`, data: { n } });
const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

describe('webhook secrets', () => {
  it('are whsec_ + standard base64 of 32 random bytes', () => {
    const secrets = Array.from({ length: 1000 }, generateWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      expect(isStandardWebhooksSecret(secret)).toBe(true);
    }
    expect(new Set(secrets).size).toBe(1000);
    expect(secrets.some((s) => /[+/]/.test(s))).toBe(true);
  });

  it('issued before (URL-safe, unpadded) are told apart: never standard', () => {
    for (let i = 0; i < 200; i++) expect(isStandardWebhooksSecret(legacySecret())).toBe(false);
  });
});

describe('a delivery signed with 1,000 generated secrets, each through a rotation', () => {
  it('verifies under stripe-node and standardwebhooks with the new and the old secret', () => {
    let previous = generateWebhookSecret();
    for (let n = 0; n < 1000; n++) {
      const current = generateWebhookSecret();
      const body = bodyOf(n);
      const eventId = JSON.parse(body).event_id as string;
      const t = nowSeconds();
      const headers = lower(deliveryAuthHeaders(eventId, body, [current, previous], t));
      expect(headers['webhook-id']).toBe(eventId);
      expect(headers['webhook-timestamp']).toBe(String(t));
      expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
      for (const secret of [current, previous]) {
        expect(stripe.webhooks.constructEvent(body, headers['x-webhook-signature']!, secret)).toEqual(JSON.parse(body));
        expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      }
      const after = lower(deliveryAuthHeaders(eventId, body, [current], t));
      expect(new Webhook(current).verify(body, after)).toEqual(JSON.parse(body));
      expect(() => new Webhook(previous).verify(body, after)).toThrow(WebhookVerificationError);
      previous = current;
    }
  });

  it('is refused by standardwebhooks for another secret, a changed body, another id or a stale timestamp', () => {
    const secret = generateWebhookSecret();
    const body = bodyOf(1);
    const headers = lower(deliveryAuthHeaders('evt_1', body, [secret], nowSeconds()));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body.replace('1', '2'), headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow(WebhookVerificationError);
    const stale = lower(deliveryAuthHeaders('evt_1', body, [secret], nowSeconds() - 301));
    expect(() => new Webhook(secret).verify(body, stale)).toThrow(WebhookVerificationError);
  });
});

describe('a legacy secret', () => {
  it('keeps its X-Webhook-Signature and gets no Standard Webhooks headers', () => {
    const secret = legacySecret();
    const body = bodyOf(3);
    const headers = lower(deliveryAuthHeaders('evt_3', body, [secret], nowSeconds()));
    expect(Object.keys(headers)).toEqual(['x-webhook-signature']);
    expect(stripe.webhooks.constructEvent(body, headers['x-webhook-signature']!, secret)).toEqual(JSON.parse(body));
  });

  it('signing during the overlap of its rotation: standard headers carry only the new secret', () => {
    const [fresh, old] = [generateWebhookSecret(), legacySecret()];
    const body = bodyOf(4);
    const headers = lower(deliveryAuthHeaders('evt_4', body, [fresh, old], nowSeconds()));
    expect(headers['webhook-signature']).toBe(standardSignatureOf(fresh, 'evt_4', Number(headers['webhook-timestamp']), body));
    expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body));
    expect(stripe.webhooks.constructEvent(body, headers['x-webhook-signature']!, old)).toEqual(JSON.parse(body));
  });

  it('is why: the official verifier refuses or mis-decodes most URL-safe secrets', () => {
    let unusable = 0;
    for (let i = 0; i < 200; i++) {
      const secret = legacySecret();
      const body = bodyOf(i);
      // What the headers would be if erx keyed them with Node's lenient decoding of the secret.
      const headers = { 'webhook-id': 'evt_x', 'webhook-timestamp': String(nowSeconds()), 'webhook-signature': standardSignatureOf(secret, 'evt_x', nowSeconds(), body) };
      try {
        new Webhook(secret).verify(body, headers);
      } catch {
        unusable++;
      }
    }
    expect(unusable).toBeGreaterThan(100);
  });
});
