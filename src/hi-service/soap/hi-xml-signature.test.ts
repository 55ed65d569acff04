// The request signature as ADHA's clients make it, checked independently with xml-crypto: one
// reference each to the timestamp, user and Body by xml:id, exclusive C14N, the certificate in
// KeyInfo; any change to a signed part breaks it. And the answer side: a signature verifies only
// with its digests intact and a signer that chains to the trusted CA (or the system store).
import { DOMParser, type Element } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeEnvelope } from './hi-soap-envelope.ts';
import { NS, SEARCH_IHI } from './hi-soap-wire.ts';
import { findHeaderSignature, signEnvelope, verifyAnswerSignature, HiSignatureError } from './hi-xml-signature.ts';
import { createTestCa, createTestPki, issueNashCertificate, type TestPki } from '../../../test/hi-service/test-pki.ts';
import { answerXml, ihiResultXml } from '../../../test/hi-service/soap/soap-answer-xml.ts';

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});

const ALGORITHMS = [
  ['rsa-sha1', 'sha1', 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', 'http://www.w3.org/2000/09/xmldsig#sha1'],
  ['rsa-sha256', 'sha256', 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2001/04/xmlenc#sha256'],
] as const;

function signedRequest(signatureAlgorithm: 'rsa-sha1' | 'rsa-sha256', digestAlgorithm: 'sha1' | 'sha256') {
  const envelope = writeEnvelope({
    operation: SEARCH_IHI,
    payload: '<ihiSvc:searchIHI><cc:dvaFileNumber>N 908030D</cc:dvaFileNumber></ihiSvc:searchIHI>',
    endpoint: 'https://hi.example.test/soap/',
    product: { vendorQualifier: 'http://ns.medicareaustralia.gov.au/mcaVendorId/1.0', vendorId: 'ERX00001', productName: 'erx', productVersion: '1' },
    userId: 'user-42',
    hpio: '8003624166667003',
    now: new Date('2026-11-26T10:00:00Z'),
  });
  const { timestamp, user, body } = envelope.ids;
  const xml = signEnvelope(envelope.xml, [timestamp, user, body], { keyPem: pki.nash.keyPem, certPem: pki.nash.certPem, signatureAlgorithm, digestAlgorithm });
  return { xml, ids: envelope.ids };
}

function signatureOf(xml: string): Element {
  return new DOMParser().parseFromString(xml, 'text/xml').getElementsByTagNameNS(NS.ds, 'Signature')[0]!;
}

/** xml-crypto on its own, with the NASH certificate as the key: not the adapter's verifier. */
function verifyIndependently(xml: string): boolean {
  const verifier = new SignedXml({ publicCert: pki.nash.certPem, getCertFromKeyInfo: () => null });
  verifier.loadSignature(signatureOf(xml) as unknown as Node);
  try {
    return verifier.checkSignature(xml);
  } catch {
    return false;
  }
}

describe.each(ALGORITHMS)('request signature (%s, %s)', (signatureAlgorithm, digestAlgorithm, signatureUri, digestUri) => {
  it('signs timestamp, user and Body by xml:id inside the signature header, with the certificate in KeyInfo', () => {
    const { xml, ids } = signedRequest(signatureAlgorithm, digestAlgorithm);
    const signature = signatureOf(xml);
    expect(signature.parentNode && (signature.parentNode as Element).localName).toBe('signature');
    expect(signature.prefix).toBe('ds');
    const references = Array.from(signature.getElementsByTagNameNS(NS.ds, 'Reference'));
    expect(references.map((r) => r.getAttribute('URI'))).toEqual([`#${ids.timestamp}`, `#${ids.user}`, `#${ids.body}`]);
    for (const reference of references) {
      expect(Array.from(reference.getElementsByTagNameNS(NS.ds, 'Transform')).map((t) => t.getAttribute('Algorithm'))).toEqual(['http://www.w3.org/2001/10/xml-exc-c14n#']);
      expect(reference.getElementsByTagNameNS(NS.ds, 'DigestMethod')[0]!.getAttribute('Algorithm')).toBe(digestUri);
    }
    expect(signature.getElementsByTagNameNS(NS.ds, 'CanonicalizationMethod')[0]!.getAttribute('Algorithm')).toBe('http://www.w3.org/2001/10/xml-exc-c14n#');
    expect(signature.getElementsByTagNameNS(NS.ds, 'SignatureMethod')[0]!.getAttribute('Algorithm')).toBe(signatureUri);
    const certificate = signature.getElementsByTagNameNS(NS.ds, 'X509Certificate')[0]!.textContent!.replace(/\s+/g, '');
    expect(certificate).toBe(pki.nash.certPem.replace(/-----[^-]+-----|\s+/g, ''));
  });

  it('verifies with xml-crypto independently', () => {
    expect(verifyIndependently(signedRequest(signatureAlgorithm, digestAlgorithm).xml)).toBe(true);
  });

  it.each([
    ['the Body', (xml: string) => xml.replace('N 908030D', 'N 908030C')],
    ['the user', (xml: string) => xml.replace('<qid:id>user-42</qid:id>', '<qid:id>user-43</qid:id>')],
    ['the timestamp', (xml: string) => xml.replace('2026-11-26T10:00:00.000Z', '2026-11-26T10:00:01.000Z')],
  ])('no longer verifies once %s changes', (_part, tamper) => {
    const { xml } = signedRequest(signatureAlgorithm, digestAlgorithm);
    const tampered = tamper(xml);
    expect(tampered).not.toBe(xml);
    expect(verifyIndependently(tampered)).toBe(false);
  });
});

describe('answer signature', () => {
  const now = new Date();
  const headerOf = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml').documentElement!.getElementsByTagNameNS(NS.soap, 'Header')[0]!;
  const result = () => ihiResultXml({ ihi: '8003601240022579', status: 'Active', recordStatus: 'Verified' });

  it.each(['rsa-sha1', 'rsa-sha256'] as const)('verifies an answer signed (%s) by a certificate of the trusted CA and returns what it covers', (algorithm) => {
    const xml = answerXml(result(), { ...pki.hiSigner, algorithm });
    expect(verifyAnswerSignature(xml, findHeaderSignature(headerOf(xml))!, { trustedCaPem: pki.ca.certPem, now })).toEqual(new Set(['answer-body', 'answer-timestamp']));
  });

  it('refuses an answer whose Body changed after signing', () => {
    const xml = answerXml(result(), pki.hiSigner).replace('8003601240022579', '8003608666670997');
    expect(() => verifyAnswerSignature(xml, findHeaderSignature(headerOf(xml))!, { trustedCaPem: pki.ca.certPem, now })).toThrow(HiSignatureError);
  });

  it('refuses a signer from another CA, and the test CA when only the system store is trusted', () => {
    const stranger = issueNashCertificate(createTestCa('another CA'));
    const xml = answerXml(result(), stranger);
    expect(() => verifyAnswerSignature(xml, findHeaderSignature(headerOf(xml))!, { trustedCaPem: pki.ca.certPem, now })).toThrow(/does not chain/);
    const ours = answerXml(result(), pki.hiSigner);
    expect(() => verifyAnswerSignature(ours, findHeaderSignature(headerOf(ours))!, { now })).toThrow(/does not chain/);
  });

  it('refuses a signer whose certificate is out of date', () => {
    const xml = answerXml(result(), pki.hiSigner);
    const later = new Date(now.getTime() + 400 * 86_400_000);
    expect(() => verifyAnswerSignature(xml, findHeaderSignature(headerOf(xml))!, { trustedCaPem: pki.ca.certPem, now: later })).toThrow(/out of date/);
  });
});
