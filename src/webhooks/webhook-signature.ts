// The spec's webhook authenticity: `X-Webhook-Signature: t=<unix seconds>,v1=<hex>` where the
// hex is HMAC-SHA256 of "<t>.<raw body>" keyed with the partner's secret (the whole `whsec_...`
// text). During a rotation's overlap one v1 per secret, the new one first; receivers accept a
// delivery when any v1 matches a secret they hold (the scheme Stripe's libraries verify).
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-webhook-signature';

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body, 'utf8').digest('hex');
}

/** The header value for `body` sent at `timestamp` (unix seconds), signed with every secret given. */
export function signWebhookPayload(body: string, secrets: readonly string[], timestamp: number): string {
  if (secrets.length === 0) throw new Error('a webhook delivery needs at least one secret to sign with');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureOf(secret, timestamp, body)}`)].join(',');
}
