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
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

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

/**
 * A secret ready to sign with: the spec's key (the secret's text) and, for a standard secret,
 * Standard Webhooks' key (the bytes its base64 decodes to). Made once per endpoint a dispatcher
 * claims for, not per delivery (BENCHMARKS.md, decisions).
 */
export interface WebhookSigningKey {
  readonly spec: KeyObject;
  /** Undefined for a legacy secret, which gets no Standard Webhooks signature. */
  readonly standard: KeyObject | undefined;
}

export function signingKeyOf(secret: string): WebhookSigningKey {
  return {
    spec: createSecretKey(Buffer.from(secret, 'utf8')),
    standard: isStandardWebhooksSecret(secret) ? createSecretKey(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')) : undefined,
  };
}

export function signatureOf(secret: string | WebhookSigningKey, timestamp: number, body: string): string {
  const key = typeof secret === 'string' ? secret : secret.spec;
  return createHmac('sha256', key).update(`${timestamp}.`, 'utf8').update(body, 'utf8').digest('hex');
}

/** The header value for `body` sent at `timestamp` (unix seconds), signed with every secret given. */
export function signWebhookPayload(body: string, secrets: readonly (string | WebhookSigningKey)[], timestamp: number): string {
  if (secrets.length === 0) throw new Error('a webhook delivery needs at least one secret to sign with');
  let header = `t=${timestamp}`;
  for (const secret of secrets) header += `,v1=${signatureOf(secret, timestamp, body)}`;
  return header;
}

/** One Standard Webhooks signature (`v1,<base64>`) with the bytes after `whsec_` as base64 decodes them. */
export function standardSignatureOf(secret: string, eventId: string, timestamp: number, body: string): string {
  return standardSignatureWith(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64'), eventId, timestamp, body);
}

function standardSignatureWith(key: KeyObject | Buffer, eventId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${eventId}.${timestamp}.`, 'utf8').update(body, 'utf8').digest('base64')}`;
}

/** Every header of a delivery's authenticity: the spec's, plus Standard Webhooks' when a secret allows. */
export function deliveryAuthHeaders(eventId: string, body: string, secrets: readonly string[], timestamp: number): Record<string, string> {
  return deliveryAuthHeadersWith(eventId, body, secrets.map(signingKeyOf), timestamp);
}

/** deliveryAuthHeaders with the keys already made (the dispatcher's path). */
export function deliveryAuthHeadersWith(eventId: string, body: string, keys: readonly WebhookSigningKey[], timestamp: number): Record<string, string> {
  const headers: Record<string, string> = { 'X-Webhook-Signature': signWebhookPayload(body, keys, timestamp) };
  let standard = '';
  for (const key of keys) {
    if (key.standard) standard += `${standard ? ' ' : ''}${standardSignatureWith(key.standard, eventId, timestamp, body)}`;
  }
  if (standard) {
    headers['webhook-id'] = eventId;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = standard;
  }
  return headers;
}
