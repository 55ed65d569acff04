// Webhook authenticity, two schemes on every delivery:
// - the spec's `X-Webhook-Signature: t=<unix seconds>,v1=<hex>` where the hex is HMAC-SHA256 of
//   "<t>.<raw body>" keyed with the partner's secret (the whole `whsec_...` text). During a
//   rotation's overlap one v1 per secret, the new one first (the scheme Stripe's libraries verify);
// - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the event_id, the same
//   across retries and replays), `webhook-timestamp` (unix seconds) and `webhook-signature`
//   (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the base64-decoded bytes
//   after `whsec_`; space-separated values during an overlap).
// Secrets issued since Standard Webhooks came are `whsec_` + standard base64 (with `+`, `/`,
// `=`) of 32 random bytes. Secrets issued before are URL-safe base64 without padding, which the
// official verifiers reject or decode to other bytes: such a legacy secret keeps its
// X-Webhook-Signature and gets no Standard Webhooks signature from it (never a header an
// official verifier would mis-verify); rotating the secret is the upgrade path.
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** A new webhook secret: `whsec_` + standard base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** Whether the official Standard Webhooks verifiers decode this secret to the bytes erx signs with. */
export function isStandardWebhooksSecret(secret: string): boolean {
  return STANDARD_SECRET.test(secret);
}

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body, 'utf8').digest('hex');
}

/** The header value for `body` sent at `timestamp` (unix seconds), signed with every secret given. */
export function signWebhookPayload(body: string, secrets: readonly string[], timestamp: number): string {
  if (secrets.length === 0) throw new Error('a webhook delivery needs at least one secret to sign with');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureOf(secret, timestamp, body)}`)].join(',');
}

/** One Standard Webhooks signature (`v1,<base64>`) of a standard secret. */
export function standardSignatureOf(secret: string, eventId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${eventId}.${timestamp}.`, 'utf8').update(body, 'utf8').digest('base64')}`;
}

/** Every header of a delivery's authenticity: the spec's, plus Standard Webhooks' when a secret allows. */
export function deliveryAuthHeaders(eventId: string, body: string, secrets: readonly string[], timestamp: number): Record<string, string> {
  const headers: Record<string, string> = { 'X-Webhook-Signature': signWebhookPayload(body, secrets, timestamp) };
  const standard = secrets.filter(isStandardWebhooksSecret);
  if (standard.length > 0) {
    headers['webhook-id'] = eventId;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = standard.map((secret) => standardSignatureOf(secret, eventId, timestamp, body)).join(' ');
  }
  return headers;
}
