// The request signature as the service checks it: one enveloped XML signature inside the
// `signature` header, exclusive C14N, RSA-SHA1 or RSA-SHA256, one reference each (by xml:id)
// to the Body, the `user` header and the `timestamp` header, and the signing certificate in
// KeyInfo, which must be the TLS client's own certificate and chain to the trusted CA.
import { X509Certificate } from 'node:crypto';
import type { Document, Element } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import type { EnvelopeSeen } from './check-envelope.ts';
import { NS, SIGNATURE_ALGORITHMS } from './hi-wire.ts';
import { allElements, childElements, findChild, isElement, readText, readXmlId, requireChild, violation } from './xml-dom.ts';

const SIGNATURE_METHODS: string[] = [SIGNATURE_ALGORITHMS.rsaSha1, SIGNATURE_ALGORITHMS.rsaSha256];
const DIGEST_METHODS: string[] = [SIGNATURE_ALGORITHMS.sha1, SIGNATURE_ALGORITHMS.sha256];

export interface SignatureSeen {
  signatureMethod: string;
  digestMethods: string[];
  signerSubject: string;
}

function readAlgorithm(parent: Element, localName: string): string {
  return requireChild(parent, NS.ds, localName).getAttribute('Algorithm') ?? '';
}

function findSignature(header: Element): Element {
  const container = requireChild(header, NS.commonElements, 'signature');
  const children = childElements(container);
  if (children.length !== 1 || !isElement(children[0], NS.ds, 'Signature')) {
    violation('header signature must hold exactly one ds:Signature');
  }
  return children[0];
}

/** The element a reference's URI names by xml:id; any other element carrying the value is a wrapping attempt. */
function resolveReference(document: Document, uri: string): Element {
  if (!uri.startsWith('#') || uri.length < 2) violation(`signature reference ${uri || '(empty)'} must name an element by #id`);
  const id = uri.slice(1);
  const carriers = allElements(document.documentElement!).filter((element) =>
    Array.from(element.attributes).some((attribute) => (attribute.localName ?? '').toLowerCase() === 'id' && attribute.value === id),
  );
  if (carriers.length !== 1) violation(`signature reference ${uri} must name exactly one element (found ${carriers.length})`);
  const element = carriers[0]!;
  if (readXmlId(element) !== id) violation(`signature reference ${uri} must name its element by xml:id`);
  return element;
}

function checkTransforms(reference: Element, uri: string): void {
  const transforms = findChild(reference, NS.ds, 'Transforms');
  const algorithms = transforms ? childElements(transforms).map((transform) => transform.getAttribute('Algorithm') ?? '') : [];
  const allowed = [[SIGNATURE_ALGORITHMS.excC14n], [SIGNATURE_ALGORITHMS.envelopedSignature, SIGNATURE_ALGORITHMS.excC14n]];
  if (!allowed.some((list) => list.join(' ') === algorithms.join(' '))) {
    violation(`signature reference ${uri}: transforms must be exclusive C14N (optionally after enveloped-signature), not ${algorithms.join(', ') || 'none'}`);
  }
}

function checkReferences(document: Document, signedInfo: Element, envelope: EnvelopeSeen): string[] {
  const references = childElements(signedInfo).filter((element) => isElement(element, NS.ds, 'Reference'));
  const expected = new Map<Element, string>([
    [envelope.body, 'Body'],
    [requireChild(envelope.header, NS.commonElements, 'user'), 'user'],
    [requireChild(envelope.header, NS.commonElements, 'timestamp'), 'timestamp'],
  ]);
  const signed = new Set<Element>();
  const digests: string[] = [];
  for (const reference of references) {
    const uri = reference.getAttribute('URI') ?? '';
    const element = resolveReference(document, uri);
    if (!expected.has(element)) violation(`signature reference ${uri} names ${element.localName}, which is not the Body, user or timestamp`);
    if (signed.has(element)) violation(`signature references ${expected.get(element)} twice`);
    signed.add(element);
    checkTransforms(reference, uri);
    const digest = readAlgorithm(reference, 'DigestMethod');
    if (!DIGEST_METHODS.includes(digest)) violation(`signature reference ${uri}: digest ${digest} is not SHA-1 or SHA-256`);
    digests.push(digest);
  }
  const unsigned = [...expected].filter(([element]) => !signed.has(element)).map(([, name]) => name);
  if (unsigned.length > 0) violation(`the signature does not cover ${unsigned.join(', ')}`);
  return digests;
}

function readSigningCertificate(signature: Element): X509Certificate {
  const keyInfo = findChild(signature, NS.ds, 'KeyInfo') ?? violation('the signature has no KeyInfo');
  const x509Data = findChild(keyInfo, NS.ds, 'X509Data') ?? violation('the signature KeyInfo has no X509Data');
  const certificate = childElements(x509Data).find((element) => isElement(element, NS.ds, 'X509Certificate'));
  if (!certificate) violation('the signature X509Data has no X509Certificate');
  try {
    return new X509Certificate(Buffer.from(readText(certificate).replace(/\s+/g, ''), 'base64'));
  } catch {
    return violation('the signature X509Certificate is not a certificate');
  }
}

function checkSigner(signer: X509Certificate, tlsClient: X509Certificate | undefined, trustedCa: X509Certificate, now: Date): void {
  if (tlsClient === undefined || !signer.raw.equals(tlsClient.raw)) violation('the signing certificate is not the TLS client certificate');
  if (!signer.checkIssued(trustedCa) || !signer.verify(trustedCa.publicKey)) violation('the signing certificate does not chain to the trusted CA');
  if (now < new Date(signer.validFrom) || now > new Date(signer.validTo)) violation('the signing certificate is not valid now');
}

/** Checks the request's signature; `xml` is the request exactly as received. */
export function checkRequestSignature(options: {
  xml: string;
  document: Document;
  envelope: EnvelopeSeen;
  tlsClient: X509Certificate | undefined;
  trustedCa: X509Certificate;
  now: Date;
}): SignatureSeen {
  const signature = findSignature(options.envelope.header);
  const signedInfo = requireChild(signature, NS.ds, 'SignedInfo');
  const c14n = readAlgorithm(signedInfo, 'CanonicalizationMethod');
  if (c14n !== SIGNATURE_ALGORITHMS.excC14n) violation(`SignedInfo canonicalization ${c14n} is not exclusive C14N`);
  const signatureMethod = readAlgorithm(signedInfo, 'SignatureMethod');
  if (!SIGNATURE_METHODS.includes(signatureMethod)) violation(`signature method ${signatureMethod} is not RSA-SHA1 or RSA-SHA256`);
  const digestMethods = checkReferences(options.document, signedInfo, options.envelope);
  const signer = readSigningCertificate(signature);
  checkSigner(signer, options.tlsClient, options.trustedCa, options.now);
  const verifier = new SignedXml({ publicCert: signer.toString(), getCertFromKeyInfo: () => null });
  verifier.loadSignature(signature as unknown as Node);
  let valid: boolean;
  try {
    valid = verifier.checkSignature(options.xml);
  } catch (error) {
    return violation(`the signature does not verify (${(error as Error).message.split('\n')[0]})`);
  }
  if (!valid) violation('the signature does not verify');
  return { signatureMethod, digestMethods, signerSubject: signer.subject };
}
