// The NASH PKCS#12 file is read into the key, certificate and chain the adapter uses; a wrong
// passphrase or a broken file fails with a message that never carries the passphrase.
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNashCertificate } from '../../../src/hi-service/soap/index.ts';
import { createTestCa, issueNashCertificate, toPkcs12, type TestNashCertificate } from '../test-pki.ts';

let ca: ReturnType<typeof createTestCa>;
let nash: TestNashCertificate;
const NOW = new Date('2026-06-01T00:00:00Z');

beforeAll(() => {
  ca = createTestCa('erx test CA', NOW);
  nash = issueNashCertificate(ca, { now: NOW, validDays: 30, commonName: 'general.8003629900000000.id.electronichealth.net.au' });
});

describe('loadNashCertificate', () => {
  it('reads the key, the certificate, the issuing chain, the expiry and the subject', () => {
    const loaded = loadNashCertificate(nash.pfx, nash.passphrase);
    expect(new X509Certificate(loaded.certPem).fingerprint256).toBe(new X509Certificate(nash.certPem).fingerprint256);
    expect(loaded.chainPems.map((pem) => new X509Certificate(pem).fingerprint256)).toEqual([new X509Certificate(ca.certPem).fingerprint256]);
    const publicFromKey = createPublicKey(createPrivateKey(loaded.keyPem)).export({ type: 'spki', format: 'pem' });
    expect(publicFromKey).toBe(new X509Certificate(loaded.certPem).publicKey.export({ type: 'spki', format: 'pem' }));
    expect(loaded.notAfter.toISOString()).toBe(new Date(new X509Certificate(nash.certPem).validTo).toISOString());
    expect(loaded.notAfter.getTime()).toBeGreaterThan(NOW.getTime() + 29 * 86_400_000);
    expect(loaded.subject).toContain('CN=general.8003629900000000.id.electronichealth.net.au');
  });

  it('finds the leaf by its key whatever the order of the certificates in the file', () => {
    const pfx = toPkcs12({ keyPem: nash.keyPem, certPem: nash.certPem }, [ca.certPem], 'secret-pass');
    const loaded = loadNashCertificate(pfx, 'secret-pass');
    expect(new X509Certificate(loaded.certPem).fingerprint256).toBe(new X509Certificate(nash.certPem).fingerprint256);
  });

  it('refuses a wrong passphrase without naming it', () => {
    let message = '';
    try {
      loadNashCertificate(nash.pfx, 'not-the-passphrase-123');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/passphrase does not open/);
    expect(message).not.toContain('not-the-passphrase-123');
    expect(message).not.toContain(nash.passphrase);
  });

  it.each([
    ['an empty file', () => Buffer.alloc(0)],
    ['a PEM text instead of PKCS#12', () => Buffer.from(nash.certPem)],
    ['a truncated PKCS#12 file', () => nash.pfx.subarray(0, Math.floor(nash.pfx.length / 2))],
  ])('refuses %s as unreadable', (_name, makeInput) => {
    expect(() => loadNashCertificate(makeInput(), nash.passphrase)).toThrow(/not a readable PKCS#12/);
  });
});
