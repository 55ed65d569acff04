// The key in a token page's address (/tokens/{key}) is never stored: it is derived from the
// secret key and the prescription's id (HMAC-SHA-256, 16 bytes, base64url: 22 characters),
// and the database holds only its SHA-256, by which a presented key finds its page. With the
// database alone nobody can open a token page.
import { createHmac } from 'node:crypto';
import { hashSecret } from '../platform/secrets.ts';

const KEY_BYTES = 16;

/**
 * Keys already derived, per secret key: a page of 50 prescriptions would otherwise cost 50 HMACs
 * (a third of the list's throughput, measured). Emptied past KEYS_REMEMBERED, so it stays small.
 */
const derived = new WeakMap<Buffer, Map<string, string>>();
const KEYS_REMEMBERED = 10_000;

export function tokenPageKeyOf(prescriptionId: string, secretKey: Buffer): string {
  let keys = derived.get(secretKey);
  if (!keys) derived.set(secretKey, (keys = new Map()));
  let key = keys.get(prescriptionId);
  if (key === undefined) {
    key = createHmac('sha256', secretKey).update(`erx token page\0${prescriptionId}`).digest().subarray(0, KEY_BYTES).toString('base64url');
    if (keys.size >= KEYS_REMEMBERED) keys.clear();
    keys.set(prescriptionId, key);
  }
  return key;
}

/** What the `token` column holds for a prescription made now. */
export function storedTokenPageKeyOf(prescriptionId: string, secretKey: Buffer): string {
  return hashSecret(tokenPageKeyOf(prescriptionId, secretKey));
}

/** A key kept in clear by a prescription made before keys were hashed is its 22 characters; a hash is 64. */
const LEGACY_KEY_LENGTH = 22;

/** The key of a stored prescription's token page. */
export function tokenPageKeyOfRow(row: { id: string; token: string }, secretKey: Buffer): string {
  return row.token.length === LEGACY_KEY_LENGTH ? row.token : tokenPageKeyOf(row.id, secretKey);
}

/** The `token` values a presented key may be stored as: its hash, or (made before hashing) itself. */
export const storedFormsOfTokenPageKey = (key: string): string[] => [hashSecret(key), key];
