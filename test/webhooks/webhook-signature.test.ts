// Partners verify our signatures with what they already use: Stripe's library implements the
// same `t=...,v1=...` scheme, so a delivery signed by our code must pass its constructEvent,
// including the two-signature header of a rotation, and a stale timestamp must fail it.
import { createHmac, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { signatureOf, signWebhookPayload } from '../../src/webhooks/webhook-signature.ts';

const stripe = new Stripe('sk_test_unused');
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({
  event_type: 'prescription.created',
  event_id: 'evt_0123456789abcdef0123456789abcdef',
  timestamp: '2026-11-24T09:00:00.000Z',
  partner_id: 'acme-pms',
  organization_id: '7d8a2f4e-1111-4a4a-8a8a-000000000000',
  data: { patient_id: 'a7f0c1de-0000-4000-8000-000000000001', partner_patient_id: 'P-1', user_id: 'b1c2d3e4-0000-4000-8000-000000000002', scid: '2TM1XVXBJRWXH8NM68' },
  metadata: { reserved_1: 'x', reserved_2: null, reserved_3: null },
});

describe('X-Webhook-Signature', () => {
  it('is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with the whole whsec_ secret', () => {
    const secret = newSecret();
    const header = signWebhookPayload(body, [secret], 1_795_000_000);
    const expected = createHmac('sha256', secret).update(`1795000000.${body}`).digest('hex');
    expect(header).toBe(`t=1795000000,v1=${expected}`);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("verifies with the stripe package's constructEvent, which returns the envelope", () => {
    const secret = newSecret();
    const header = signWebhookPayload(body, [secret], nowSeconds());
    expect(stripe.webhooks.constructEvent(body, header, secret)).toEqual(JSON.parse(body));
  });

  it('during a rotation carries v1=<new>,v1=<old>, and either secret verifies', () => {
    const [fresh, old] = [newSecret(), newSecret()];
    const t = nowSeconds();
    const header = signWebhookPayload(body, [fresh, old], t);
    expect(header).toBe(`t=${t},v1=${signatureOf(fresh, t, body)},v1=${signatureOf(old, t, body)}`);
    expect(stripe.webhooks.constructEvent(body, header, fresh)).toEqual(JSON.parse(body));
    expect(stripe.webhooks.constructEvent(body, header, old)).toEqual(JSON.parse(body));
    expect(() => stripe.webhooks.constructEvent(body, header, newSecret())).toThrow(/No signatures found matching the expected signature/);
  });

  it('after the overlap, the old secret no longer verifies', () => {
    const [fresh, old] = [newSecret(), newSecret()];
    const header = signWebhookPayload(body, [fresh], nowSeconds());
    expect(stripe.webhooks.constructEvent(body, header, fresh)).toBeTruthy();
    expect(() => stripe.webhooks.constructEvent(body, header, old)).toThrow(/No signatures found matching/);
  });

  it('is rejected when its timestamp is more than 300 s old, accepted just inside', () => {
    const secret = newSecret();
    expect(() => stripe.webhooks.constructEvent(body, signWebhookPayload(body, [secret], nowSeconds() - 301), secret)).toThrow(/Timestamp outside the tolerance zone/);
    expect(stripe.webhooks.constructEvent(body, signWebhookPayload(body, [secret], nowSeconds() - 290), secret)).toBeTruthy();
  });

  it('is rejected for a body changed in any way, even re-serialised JSON', () => {
    const secret = newSecret();
    const header = signWebhookPayload(body, [secret], nowSeconds());
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    expect(() => stripe.webhooks.constructEvent(reserialised, header, secret)).toThrow(/No signatures found matching/);
    expect(() => stripe.webhooks.constructEvent(body.replace('acme-pms', 'acme-pmz'), header, secret)).toThrow(/No signatures found matching/);
  });

  it('needs a secret to sign with', () => {
    expect(() => signWebhookPayload(body, [], nowSeconds())).toThrow(/at least one secret/);
  });
});
