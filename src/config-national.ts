// The settings of the national services' ports: the HI Service (simulator or SOAP, with its
// certificate, trusted CA and pinned signer), the Prescription Delivery Service and real-time
// prescription monitoring. Production refuses the simulators.
import { SETTINGS } from './config-settings.ts';
import { ConfigError, readChoice, readOptional, readText, type Env, type Mode } from './config-readers.ts';

export type HiAdapterName = 'simulator' | 'soap';

/** `none`: no PDS is connected, so only paper prescriptions can be written (DESIGN decision 25). */
export type PdsAdapterName = 'simulator' | 'none';

export interface HiSoapConfig {
  endpoint: string | undefined;
  certPath: string | undefined;
  certPassphrase: string | undefined;
  /** ERX_HI_CERT_PASSPHRASE_FILE: read at start by hi-runtime.ts (never both it and the passphrase). */
  certPassphraseFile: string | undefined;
  caPath: string | undefined;
  /** ERX_HI_SIGNER_SPKI: base64 SHA-256 of each accepted answer signer's SubjectPublicKeyInfo (empty: unpinned). */
  signerSpkiPins: string[];
  vendorQualifier: string | undefined;
  vendorId: string | undefined;
  productName: string | undefined;
  productVersion: string | undefined;
  signatureAlgorithm: 'rsa-sha1' | 'rsa-sha256';
  digestAlgorithm: 'sha1' | 'sha256';
}

export interface HiCheckConfig {
  hpio: string | undefined;
  hpii: string | undefined;
  familyName: string | undefined;
  givenName: string | undefined;
  dateOfBirth: string | undefined;
  sex: string | undefined;
}

/** ERX_RTPM: empty is the simulator in sandbox and none in production, where the simulator is refused. */
export function readRtpm(env: Env, mode: Mode): 'simulator' | 'none' {
  if (readText(env, 'rtpm') === '') return mode === 'production' ? 'none' : 'simulator';
  const rtpm = readChoice(env, 'rtpm', ['simulator', 'none'] as const);
  if (rtpm === 'simulator' && mode === 'production') throw new ConfigError('ERX_RTPM=simulator is for the sandbox: in production use none (the national RTPM exchange needs its licensed interface)');
  return rtpm;
}

export function readHiAdapter(env: Env, mode: Mode): HiAdapterName {
  if (readText(env, 'hiAdapter') === '') return mode === 'production' ? 'soap' : 'simulator';
  return readChoice(env, 'hiAdapter', ['simulator', 'soap'] as const);
}

export function readPdsAdapter(env: Env, mode: Mode): PdsAdapterName {
  if (readText(env, 'pdsAdapter') === '') return mode === 'production' ? 'none' : 'simulator';
  const adapter = readChoice(env, 'pdsAdapter', ['simulator', 'none'] as const);
  if (adapter === 'simulator' && mode === 'production') {
    throw new ConfigError('ERX_PDS=simulator is refused in production mode: the sandbox PDS is not a Prescription Delivery Service; use ERX_PDS=none (paper prescriptions only) until an adapter for the national PDS is installed');
  }
  return adapter;
}

export function readSandboxKill(env: Env, mode: Mode): boolean {
  const text = readText(env, 'sandboxKillAfterPdsSubmit');
  if (text === '') return false;
  if (text !== '1') throw new ConfigError(`ERX_SANDBOX_KILL_AFTER_PDS_SUBMIT must be 1 or empty, got "${text}"`);
  if (mode === 'production') throw new ConfigError('ERX_SANDBOX_KILL_AFTER_PDS_SUBMIT is a sandbox fault injection: refused in production mode');
  return true;
}

function readHiEndpoint(env: Env): string | undefined {
  const text = readOptional(env, 'hiEndpoint');
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') throw new ConfigError(`ERX_HI_ENDPOINT must be an https URL, got "${text}"`);
  return text;
}

/** A pin is the base64 of a SHA-256 digest: 32 bytes, 44 characters. */
function readSignerPins(env: Env): string[] {
  const pins = readText(env, 'hiSignerSpki').split(',').map((pin) => pin.trim()).filter(Boolean);
  const bad = pins.find((pin) => !/^[A-Za-z0-9+/]{43}=$/.test(pin));
  if (bad !== undefined) throw new ConfigError(`ERX_HI_SIGNER_SPKI must be base64 SHA-256 digests (44 characters), comma-separated, got "${bad}"`);
  return pins;
}

export function readHiSoap(env: Env): HiSoapConfig {
  const certPassphrase = env[SETTINGS.hiCertPassphrase.env] || undefined;
  const certPassphraseFile = readOptional(env, 'hiCertPassphraseFile');
  if (certPassphrase !== undefined && certPassphraseFile !== undefined) {
    throw new ConfigError('ERX_HI_CERT_PASSPHRASE and ERX_HI_CERT_PASSPHRASE_FILE are both set: set one (the file keeps the passphrase out of the environment)');
  }
  return {
    endpoint: readHiEndpoint(env),
    certPath: readOptional(env, 'hiCert'),
    certPassphrase,
    certPassphraseFile,
    caPath: readOptional(env, 'hiCa'),
    signerSpkiPins: readSignerPins(env),
    vendorQualifier: readOptional(env, 'hiVendorQualifier'),
    vendorId: readOptional(env, 'hiVendorId'),
    productName: readOptional(env, 'hiProductName'),
    productVersion: readOptional(env, 'hiProductVersion'),
    signatureAlgorithm: readChoice(env, 'hiSignatureAlgorithm', ['rsa-sha1', 'rsa-sha256'] as const),
    digestAlgorithm: readChoice(env, 'hiDigestAlgorithm', ['sha1', 'sha256'] as const),
  };
}

export function readHiCheck(env: Env): HiCheckConfig {
  return {
    hpio: readOptional(env, 'hiCheckHpio'),
    hpii: readOptional(env, 'hiCheckHpii'),
    familyName: readOptional(env, 'hiCheckFamilyName'),
    givenName: readOptional(env, 'hiCheckGivenName'),
    dateOfBirth: readOptional(env, 'hiCheckDateOfBirth'),
    sex: readOptional(env, 'hiCheckSex'),
  };
}
