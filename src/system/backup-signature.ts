// A backup's signature: an HMAC-SHA256 of the file's bytes under a key derived from erx's secret
// key, written beside it as <file>.sig (issue 38 item 7). Restore checks it, so a backup changed
// after `erx backup` (a trigger planted, rows edited) is refused by anyone without the key; a
// backup without one (made before signatures, or elsewhere) is restored only when the operator
// says so (--accept-unsigned), and the restore's audit entry records that it was unsigned.
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { PRIVATE_FILE_MODE } from '../platform/private-files.ts';

export const SIGNATURE_SUFFIX = '.sig';
const FORMAT = 'erx-backup-signature';
const CHUNK_BYTES = 1 << 20;

interface SignatureFile {
  format: typeof FORMAT;
  version: 1;
  algorithm: 'HMAC-SHA256';
  bytes: number;
  mac: string;
}

function deriveBackupKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('erx backup signature v1').digest();
}

/** The HMAC of `file`'s bytes, read in chunks (a backup can be gigabytes). */
function macOfFile(secretKey: Buffer, file: string): { mac: string; bytes: number } {
  const hmac = createHmac('sha256', deriveBackupKey(secretKey));
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let bytes = 0;
  try {
    for (let read = fs.readSync(fd, chunk); read > 0; read = fs.readSync(fd, chunk)) {
      hmac.update(chunk.subarray(0, read));
      bytes += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { mac: hmac.digest('hex'), bytes };
}

/** Writes `<file>.sig` (0600), replacing any there: the backup it signs was just written. */
export function signBackupFile(secretKey: Buffer, file: string): string {
  const { mac, bytes } = macOfFile(secretKey, file);
  const signature: SignatureFile = { format: FORMAT, version: 1, algorithm: 'HMAC-SHA256', bytes, mac };
  const target = `${file}${SIGNATURE_SUFFIX}`;
  const partial = `${target}.partial`;
  // Created afresh: a mode applies only to a file the write creates, and a crash may have left one behind.
  fs.rmSync(partial, { force: true });
  fs.writeFileSync(partial, `${JSON.stringify(signature)}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  fs.renameSync(partial, target);
  return target;
}

export type SignatureCheck = { state: 'valid' } | { state: 'absent' } | { state: 'invalid'; why: string };

/** Checks `copy` (the staged copy of `original`) against `<original>.sig`. */
export function checkBackupSignature(secretKey: Buffer, original: string, copy: string): SignatureCheck {
  let text: string;
  try {
    text = fs.readFileSync(`${original}${SIGNATURE_SUFFIX}`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    throw error;
  }
  let signature: Partial<SignatureFile>;
  try {
    signature = JSON.parse(text) as Partial<SignatureFile>;
  } catch {
    return { state: 'invalid', why: 'its signature file is not JSON' };
  }
  if (signature.format !== FORMAT || signature.version !== 1 || typeof signature.mac !== 'string' || !/^[0-9a-f]{64}$/.test(signature.mac)) {
    return { state: 'invalid', why: 'its signature file is not one erx writes' };
  }
  const { mac } = macOfFile(secretKey, copy);
  const matches = timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(signature.mac, 'hex'));
  return matches ? { state: 'valid' } : { state: 'invalid', why: 'its signature does not match: the file was changed after erx backup, or signed under another secret key' };
}
