// verifyWebhook: a delivery is erx's when one of the receiver's secrets signed it, under either
// scheme erx sends (see erx's src/webhooks/webhook-signature.ts):
// - Standard Webhooks: `webhook-id`, `webhook-timestamp` (unix seconds), `webhook-signature`
//   (space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`), keyed with the
//   base64-decoded bytes after `whsec_`;
// - the spec's `X-Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, HMAC-SHA256 of
//   "<t>.<body>" keyed with the whole secret text.
// Several secrets: during a rotation's overlap the receiver holds the new and the old. The
// timestamp must be within `toleranceSeconds` of now (replays of an old delivery are refused).
// Comparisons are constant-time. Only node:crypto.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { ErxWebhookEvent } from './operations.js';

export type WebhookScheme = 'standard-webhooks' | 'x-webhook-signature';

export interface VerifyWebhookOptions {
  /** Largest distance between the signed timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch (default Date.now()). */
  now?: number;
  /** Accept only this scheme (default: either). */
  scheme?: WebhookScheme;
}

export interface VerifiedWebhook<T = ErxWebhookEvent> {
  /** The parsed body. */
  payload: T;
  scheme: WebhookScheme;
  /** The index in `secrets` of the secret that verified it. */
  secretIndex: number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerOf(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value.join(', ') : value;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

const STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** The index of the secret whose Standard Webhooks signature is among `signatures`, or -1. */
function matchStandard(secrets: readonly string[], id: string, timestamp: string, body: string, signatures: string[]): number {
  return secrets.findIndex((secret) => {
    if (!STANDARD_SECRET.test(secret)) return false;
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
    return signatures.some((signature) => sameText(signature, expected));
  });
}

/** The index of the secret whose spec signature is among the header's v1 values, or -1. */
function matchSpec(secrets: readonly string[], timestamp: string, body: string, signatures: string[]): number {
  return secrets.findIndex((secret) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
    return signatures.some((signature) => sameText(signature, expected));
  });
}

interface Signed {
  scheme: WebhookScheme;
  timestamp: string;
  match: (secrets: readonly string[], body: string) => number;
}

/** What the headers carry of each scheme. */
function signedParts(headers: HeaderBag): Signed[] {
  const found: Signed[] = [];
  const [id, timestamp, signature] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => headerOf(headers, name));
  if (id && timestamp && signature) {
    const values = signature.split(' ').filter((v) => v.startsWith('v1,')).map((v) => v.slice(3));
    found.push({ scheme: 'standard-webhooks', timestamp, match: (secrets, body) => matchStandard(secrets, id, timestamp, body, values) });
  }
  const spec = headerOf(headers, 'x-webhook-signature');
  if (spec) {
    const pairs = spec.split(',').map((part) => part.trim().split('=') as [string, string | undefined]);
    const t = pairs.find(([k]) => k === 't')?.[1];
    const values = pairs.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v!);
    if (t) found.push({ scheme: 'x-webhook-signature', timestamp: t, match: (secrets, body) => matchSpec(secrets, t, body, values) });
  }
  return found;
}

/** Verifies a delivery and answers its parsed body; throws WebhookVerificationError otherwise. */
export function verifyWebhook<T = ErxWebhookEvent>(rawBody: string | Uint8Array, headers: HeaderBag, secrets: string | readonly string[], options: VerifyWebhookOptions = {}): VerifiedWebhook<T> {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length === 0) throw new WebhookVerificationError('no secret to verify with');
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const candidates = signedParts(headers).filter((part) => options.scheme === undefined || part.scheme === options.scheme);
  if (candidates.length === 0) throw new WebhookVerificationError('no webhook signature headers');
  const nowSeconds = (options.now ?? Date.now()) / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  let reason = 'no signature matches any secret';
  for (const part of candidates) {
    if (!/^\d+$/.test(part.timestamp) || Math.abs(nowSeconds - Number(part.timestamp)) > tolerance) {
      reason = 'timestamp outside the tolerance';
      continue;
    }
    const secretIndex = part.match(keys, body);
    if (secretIndex >= 0) return { payload: JSON.parse(body) as T, scheme: part.scheme, secretIndex };
  }
  throw new WebhookVerificationError(reason);
}
