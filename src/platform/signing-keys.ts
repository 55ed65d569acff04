// RS256 keys for access tokens. In production the private key comes from configuration; in
// the sandbox it is generated once into the data directory (mode 0600) and reused.
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPair, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE, restrictToOwner } from './private-files.ts';

export interface SigningKeys {
  kid: string;
  privateKey: KeyObject;
  /** Every key a token may be verified with (the current one first). */
  jwks: { keys: JWK[] };
}

export async function signingKeysFromPem(pem: string): Promise<SigningKeys> {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('the JWT signing key must be an RSA key');
  const publicJwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, privateKey, jwks: { keys: [{ ...publicJwk, kid, alg: 'RS256', use: 'sig' }] } };
}

const RSA_KEY = { modulusLength: 2048 } as const;
const pemOf = (privateKey: KeyObject): string => privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

export function generateSigningKeyPem(): string {
  return pemOf(generateKeyPairSync('rsa', RSA_KEY).privateKey);
}

/**
 * The same, made on the thread pool: a fresh data directory's first start makes its key (about
 * a fifth of that start's CPU) while the main thread opens and migrates the database.
 */
export async function generateSigningKeyPemOffThread(): Promise<string> {
  return pemOf((await promisify(generateKeyPair)('rsa', RSA_KEY)).privateKey);
}

/** readOrCreateKeyFile with a `create` that takes time: it runs only when the file is absent. */
export async function readOrCreateKeyFileOffThread(dir: string, name: string, create: () => Promise<string>): Promise<string> {
  return readKeyFile(dir, name) ?? writeKeyFileOnce(dir, name, await create());
}

/** Reads `<dir>/<name>`, creating it with `create()` (mode 0600) when absent. */
export function readOrCreateKeyFile(dir: string, name: string, create: () => string): string {
  return readKeyFile(dir, name) ?? writeKeyFileOnce(dir, name, create());
}

/** The key file's text, narrowed to its owner if found wider; undefined when there is none. */
function readKeyFile(dir: string, name: string): string | undefined {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) return undefined;
  restrictToOwner(file);
  return fs.readFileSync(file, 'utf8');
}

/** Writes `content` (mode 0600) unless another process wrote the file meanwhile, and answers what the file holds. */
function writeKeyFileOnce(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  ensurePrivateDirectory(dir);
  try {
    // 'wx': if another process created it meanwhile, keep theirs.
    fs.writeFileSync(file, content, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return fs.readFileSync(file, 'utf8');
}
