// A throwaway public key infrastructure for the HI Service tests: a CA the test makes, the TLS
// certificate of the fake HI Service (127.0.0.1), its answer-signing certificate, and a
// NASH-like client certificate as the PKCS#12 file an operator is issued. Keys come from Node's
// native RSA generator (fast); certificates and the PKCS#12 container from node-forge.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TestKeyPair {
  certPem: string;
  keyPem: string;
}

export interface TestNashCertificate extends TestKeyPair {
  /** The PKCS#12 file (key, certificate, issuing CA) as ERX_HI_CERT points at it. */
  pfx: Buffer;
  passphrase: string;
}

export interface TestPki {
  ca: TestKeyPair;
  /** TLS server certificate of the fake HI Service, for 127.0.0.1 and localhost. */
  server: TestKeyPair;
  /** The fake HI Service's answer-signing certificate. */
  hiSigner: TestKeyPair;
  /** Another key under the same CA and subject name as hiSigner: what only a pinned key refuses. */
  otherHiSigner: TestKeyPair;
  /** erx's NASH certificate (client TLS and request signatures). */
  nash: TestNashCertificate;
}

export interface TestPkiOptions {
  /** The time certificates start from; the real clock by default. */
  now?: Date;
  /** Days the NASH certificate stays valid after `now` (default 365). */
  nashValidDays?: number;
  /** Subject common name of the NASH certificate. */
  nashCommonName?: string;
}

interface Issuer {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
}

function newKeyPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function buildCertificate(options: {
  commonName: string;
  keyPem: string;
  issuer?: Issuer;
  notBefore: Date;
  notAfter: Date;
  extensions: object[];
}): { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } {
  const key = forge.pki.privateKeyFromPem(options.keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  // A positive serial: forge writes the hex as an INTEGER, so the high bit stays clear.
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = options.notBefore;
  cert.validity.notAfter = options.notAfter;
  const subject = [{ name: 'commonName', value: options.commonName }, { name: 'organizationName', value: 'erx test PKI' }];
  cert.setSubject(subject);
  cert.setIssuer(options.issuer ? options.issuer.cert.subject.attributes : subject);
  cert.setExtensions(options.extensions);
  cert.sign(options.issuer?.key ?? key, forge.md.sha256.create());
  return { cert, key };
}

/** A self-signed CA. */
export function createTestCa(commonName = 'erx test CA', now = new Date()): TestKeyPair & { issuer: Issuer } {
  const keyPem = newKeyPem();
  const { cert, key } = buildCertificate({
    commonName,
    keyPem,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + 3650 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ],
  });
  return { certPem: forge.pki.certificateToPem(cert), keyPem, issuer: { cert, key } };
}

function issueLeaf(
  issuer: Issuer,
  commonName: string,
  validity: { notBefore: Date; notAfter: Date },
  usage: { server?: boolean; client?: boolean; altNames?: object[] },
): TestKeyPair {
  const keyPem = newKeyPem();
  const extendedKeyUsage = { name: 'extKeyUsage', serverAuth: usage.server === true, clientAuth: usage.client === true };
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, nonRepudiation: true },
    extendedKeyUsage,
  ];
  if (usage.altNames) extensions.push({ name: 'subjectAltName', altNames: usage.altNames });
  const { cert } = buildCertificate({ commonName, keyPem, issuer, ...validity, extensions });
  return { certPem: forge.pki.certificateToPem(cert), keyPem };
}

/** Packs a key and its certificate chain into a PKCS#12 file protected by `passphrase`. */
export function toPkcs12(pair: TestKeyPair, chainPems: string[], passphrase: string): Buffer {
  const key = forge.pki.privateKeyFromPem(pair.keyPem);
  const chain = [pair.certPem, ...chainPems].map((pem) => forge.pki.certificateFromPem(pem));
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, chain, passphrase, { algorithm: '3des', friendlyName: 'erx NASH' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/** A client certificate (NASH-like) issued by `ca`, as a PKCS#12 file. */
export function issueNashCertificate(
  ca: { certPem: string; issuer: Issuer },
  options: { now?: Date; validDays?: number; commonName?: string } = {},
): TestNashCertificate {
  const now = options.now ?? new Date();
  const validity = { notBefore: new Date(now.getTime() - DAY_MS), notAfter: new Date(now.getTime() + (options.validDays ?? 365) * DAY_MS) };
  const pair = issueLeaf(ca.issuer, options.commonName ?? 'general.8003629900000000.id.electronichealth.net.au', validity, { client: true });
  const passphrase = randomBytes(9).toString('base64url');
  return { ...pair, pfx: toPkcs12(pair, [ca.certPem], passphrase), passphrase };
}

/** A CA and every certificate the HI tests need, issued by it. */
export function createTestPki(options: TestPkiOptions = {}): TestPki {
  const now = options.now ?? new Date();
  const ca = createTestCa('erx test CA', now);
  const validity = { notBefore: new Date(now.getTime() - DAY_MS), notAfter: new Date(now.getTime() + 365 * DAY_MS) };
  const altNames = [
    { type: 7, ip: '127.0.0.1' },
    { type: 2, value: 'localhost' },
  ];
  return {
    ca: { certPem: ca.certPem, keyPem: ca.keyPem },
    server: issueLeaf(ca.issuer, '127.0.0.1', validity, { server: true, altNames }),
    hiSigner: issueLeaf(ca.issuer, 'fake HI Service signing', validity, {}),
    otherHiSigner: issueLeaf(ca.issuer, 'fake HI Service signing', validity, {}),
    nash: issueNashCertificate(ca, { now, validDays: options.nashValidDays, commonName: options.nashCommonName }),
  };
}
