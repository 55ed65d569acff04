// The signature profile of ADHA's clients (smi-xsp, 2010 profile): one ds:Signature inside the
// `signature` header, one Reference per signed element (Body, user, timestamp) by its xml:id,
// exclusive C14N both as the reference transform and for SignedInfo, the signer's certificate in
// KeyInfo/X509Data. The algorithms are settings, for when SHA-1 is retired.
import { createHash, X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import type { Element } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import type { HiDigestAlgorithm, HiSignatureAlgorithm } from './hi-soap-settings.ts';
import { NS } from './hi-soap-wire.ts';

const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const SIGNATURE_METHODS: Record<HiSignatureAlgorithm, string> = {
  'rsa-sha1': 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  'rsa-sha256': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
};
const DIGEST_METHODS: Record<HiDigestAlgorithm, string> = {
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
};

export interface RequestSigner {
  keyPem: string;
  certPem: string;
  signatureAlgorithm: HiSignatureAlgorithm;
  digestAlgorithm: HiDigestAlgorithm;
}

/** Selects the element whose xml:id is `id` (ids are generated UUIDs: no quotes inside). */
function selectByXmlId(id: string): string {
  return `//*[@*[local-name(.)='id' and namespace-uri(.)='${NS.xml}']='${id}']`;
}

/** Signs the elements with these xml:ids into the envelope's empty `signature` header. */
export function signEnvelope(xml: string, ids: string[], signer: RequestSigner): string {
  const signed = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: SIGNATURE_METHODS[signer.signatureAlgorithm],
    canonicalizationAlgorithm: EXC_C14N,
  });
  for (const id of ids) {
    signed.addReference({ xpath: selectByXmlId(id), transforms: [EXC_C14N], digestAlgorithm: DIGEST_METHODS[signer.digestAlgorithm] });
  }
  const location = `//*[local-name(.)='signature' and namespace-uri(.)='${NS.ce}']`;
  signed.computeSignature(xml, { prefix: 'ds', location: { reference: location, action: 'append' } });
  return signed.getSignedXml();
}

/** Why a signed answer is not trusted; the adapter maps every one to "unreachable". */
export class HiSignatureError extends Error {
  override readonly name = 'HiSignatureError';
}

function childElements(parent: Element, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const child = node as Element;
    if (child.nodeType === 1 && child.namespaceURI === ns && child.localName === localName) found.push(child);
  }
  return found;
}

/** The one ds:Signature in the envelope's `signature` header, if any. */
export function findHeaderSignature(header: Element | undefined): Element | undefined {
  const container = header ? childElements(header, NS.ce, 'signature')[0] : undefined;
  return container ? childElements(container, NS.ds, 'Signature')[0] : undefined;
}

function readKeyInfoCertificates(signature: Element): X509Certificate[] {
  const keyInfo = childElements(signature, NS.ds, 'KeyInfo')[0];
  const data = keyInfo ? childElements(keyInfo, NS.ds, 'X509Data') : [];
  const texts = data.flatMap((d) => childElements(d, NS.ds, 'X509Certificate')).map((c) => (c.textContent ?? '').replace(/\s+/g, ''));
  if (texts.length === 0) throw new HiSignatureError('signed answer: no certificate in KeyInfo');
  try {
    return texts.map((base64) => new X509Certificate(Buffer.from(base64, 'base64')));
  } catch {
    throw new HiSignatureError('signed answer: the KeyInfo certificate is unreadable');
  }
}

/** Parsed once per bundle (the system store holds over a hundred certificates). */
const anchorsByBundle = new Map<string, X509Certificate[]>();

function readTrustAnchors(trustedCaPem: string | undefined): X509Certificate[] {
  const key = trustedCaPem ?? '';
  let anchors = anchorsByBundle.get(key);
  if (!anchors) {
    const pems = trustedCaPem ? (trustedCaPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) : rootCertificates;
    anchors = pems.map((pem) => new X509Certificate(pem));
    anchorsByBundle.set(key, anchors);
  }
  return anchors;
}

function isWithinValidity(cert: X509Certificate, now: Date): boolean {
  return Date.parse(cert.validFrom) <= now.getTime() && now.getTime() <= Date.parse(cert.validTo);
}

const issues = (issuer: X509Certificate, cert: X509Certificate) => cert.checkIssued(issuer) && cert.verify(issuer.publicKey);

/** The signer chains, through certificates KeyInfo carries, to a trust anchor; each one in date. */
function checkChain(certificates: X509Certificate[], anchors: X509Certificate[], now: Date): void {
  let current = certificates[0]!;
  for (let depth = 0; depth < 6; depth += 1) {
    if (!isWithinValidity(current, now)) throw new HiSignatureError('signed answer: a certificate of the chain is out of date');
    if (anchors.some((anchor) => anchor.fingerprint256 === current.fingerprint256 || issues(anchor, current))) return;
    const next = certificates.find((candidate) => candidate !== current && issues(candidate, current));
    if (!next) break;
    current = next;
  }
  throw new HiSignatureError('signed answer: the signing certificate does not chain to a trusted CA');
}

export interface AnswerTrust {
  trustedCaPem?: string;
  /** Base64 SHA-256 of the SubjectPublicKeyInfo of each key allowed to sign answers; empty: any signer chaining to the CA. */
  signerSpkiPins?: readonly string[];
  now: Date;
}

/** The pin of a certificate's key, as `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64` prints it. */
export function spkiPinOf(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
}

/**
 * A CA issues many certificates; only the HI Service's signing key may answer. Pinned by key, not
 * by subject name: a CA (or whoever got it to issue) can give any key the service's name.
 */
function checkSignerPin(signer: X509Certificate, pins: readonly string[] | undefined): void {
  if (!pins || pins.length === 0) return;
  if (!pins.includes(spkiPinOf(signer))) throw new HiSignatureError('signed answer: the signing key is not the pinned HI Service key (ERX_HI_SIGNER_SPKI)');
}

/**
 * Verifies the answer's signature (digests and SignatureValue) and its signer's chain, and returns
 * the xml:ids the signature covers; throws HiSignatureError otherwise.
 */
export function verifyAnswerSignature(xml: string, signature: Element, trust: AnswerTrust): Set<string> {
  const certificates = readKeyInfoCertificates(signature);
  checkChain(certificates, readTrustAnchors(trust.trustedCaPem), trust.now);
  checkSignerPin(certificates[0]!, trust.signerSpkiPins);
  const verifier = new SignedXml({ publicCert: certificates[0]!.toString() });
  let valid = false;
  try {
    verifier.loadSignature(signature.toString());
    valid = verifier.checkSignature(xml);
  } catch {
    valid = false;
  }
  if (!valid) throw new HiSignatureError('signed answer: the signature does not verify');
  const signedInfo = childElements(signature, NS.ds, 'SignedInfo')[0];
  const references = signedInfo ? childElements(signedInfo, NS.ds, 'Reference') : [];
  return new Set(references.map((reference) => (reference.getAttribute('URI') ?? '').replace(/^#/, '')));
}
