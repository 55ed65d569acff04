// RFC 6238 time-based one-time passwords (over RFC 4226's HOTP), as the authenticator apps
// compute them: a 20-byte secret shared as base32, 30-second steps from the Unix epoch, 6
// digits, HMAC-SHA-1. A code is accepted for the current step or one step either side (clock
// drift), and only for a step later than the last one accepted (a code works once).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
export const TOTP_DRIFT_STEPS = 1;

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

/** RFC 4226 section 5.3: dynamic truncation of HMAC(secret, counter) to `digits` digits. */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The 30-second step `at` falls in. */
export function totpStepAt(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);
}

/** The code of the step `at` falls in. */
export function totpAt(secret: Buffer, at: Date, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  return hotp(secret, totpStepAt(at), digits, algorithm);
}

/**
 * The step whose code `code` is, within the drift window around `at` and later than
 * `lastStep`; undefined when none is. Every candidate is compared, in constant time.
 */
export function matchTotp(secret: Buffer, code: string, at: Date, lastStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStepAt(at);
  let matched: number | undefined;
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(code));
    if (equal && (lastStep === null || step > lastStep) && matched === undefined) matched = step;
  }
  return matched;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: how authenticator apps take a secret. */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The otpauth:// URI an authenticator app scans (Google's Key Uri Format). */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const query = new URLSearchParams({ secret: base32Encode(secret), issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
