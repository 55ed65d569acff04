// Credentials: random secrets shown once and stored as hashes; webhook secrets, which must
// be recoverable to sign deliveries, stored encrypted (AES-256-GCM) under the secret key.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: far beyond guessing, so a fast hash is enough to store it. */
export function generateSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatchesHash(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

export type SecretChecker = (secret: string, storedHash: string) => boolean;

/**
 * secretMatchesHash that remembers the hashes of secrets that matched. Every authenticated
 * request presents its organization secret; hashing it each time is a measurable share of a
 * request. Only secrets that matched are remembered (at most `limit`, oldest out first), so
 * wrong guesses are always hashed and compared in constant time, and a remembered secret is
 * checked by comparing its hash, never the secret itself.
 */
export function createSecretChecker(limit = 1_000): SecretChecker {
  const hashes = new Map<string, string>();
  return (secret, storedHash) => {
    const known = hashes.get(secret);
    if (known !== undefined) return known === storedHash;
    if (!secretMatchesHash(secret, storedHash)) return false;
    if (hashes.size >= limit) hashes.delete(hashes.keys().next().value!);
    hashes.set(secret, storedHash);
    return true;
  };
}

/**
 * A value a query must find by equality while it is stored encrypted (an HPI-I): its HMAC-SHA-256
 * under the secret key, hex. A plain hash of a 16-digit identifier is guessed in minutes; without
 * the key the database cannot test guesses. `purpose` keeps the hashes of two kinds apart.
 */
export function keyedHashOf(purpose: string, value: string, key: Buffer): string {
  return createHmac('sha256', key).update(`${purpose}\0${value}`, 'utf8').digest('hex');
}

const GCM_IV_BYTES = 12;

export function parseSecretKey(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('the secret key must be 32 bytes, base64-encoded');
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
export function encryptSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/**
 * Values opened under each key, by their sealed text (its random IV makes each sealing unique,
 * so a text always opens to the same value, checked by its tag the first time): a page of 50
 * prescriptions opens 100 values, and AES-GCM's set-up per value made the list 0.61 of itself
 * before they were sealed (BENCHMARKS.md). At most OPENED_LIMIT, then emptied, as the token
 * page keys are; what is held is what the process has already opened.
 */
const opened = new WeakMap<Buffer, Map<string, string>>();
const OPENED_LIMIT = 10_000;

export function decryptSecret(sealed: string, key: Buffer): string {
  let known = opened.get(key);
  const remembered = known?.get(sealed);
  if (remembered !== undefined) return remembered;
  const plain = openSealed(sealed, key);
  if (!known) opened.set(key, (known = new Map()));
  if (known.size >= OPENED_LIMIT) known.clear();
  known.set(sealed, plain);
  return plain;
}

function openSealed(sealed: string, key: Buffer): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unrecognised encrypted secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
