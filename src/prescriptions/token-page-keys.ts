// The key in a token page's address (/tokens/{key}) is never stored: it is derived from the
// secret key and the prescription's id (HMAC-SHA-256, 16 bytes, base64url: 22 characters),
// and the database holds only its SHA-256, by which a presented key finds its page. A key made
// before keys were derived cannot be derived again: it is sealed under the secret key beside its
// hash (migration 0082). With the database alone nobody can open a token page.
import { createHmac } from 'node:crypto';
import { decryptSecret, hashSecret } from '../platform/secrets.ts';

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

/** The key of a stored prescription's token page: the one it kept sealed (made before keys were derived), or derived. */
export function tokenPageKeyOfRow(row: { id: string; token_page_key_encrypted: string | null }, secretKey: Buffer): string {
  return row.token_page_key_encrypted === null ? tokenPageKeyOf(row.id, secretKey) : decryptSecret(row.token_page_key_encrypted, secretKey);
}

/** The `token` value a presented key is stored as: its hash, whichever way the key was made. */
export const storedFormOfTokenPageKey = (key: string): string => hashSecret(key);
