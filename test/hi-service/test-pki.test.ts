// The test PKI is itself checked: a server with its certificate demands a client certificate,
// accepts the NASH PKCS#12 file and refuses a client from another CA.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCa, createTestPki, issueNashCertificate, type TestPki } from './test-pki.ts';

let pki: TestPki;
let server: https.Server;
let port: number;

beforeAll(async () => {
  pki = createTestPki();
  server = https.createServer(
    { key: pki.server.keyPem, cert: pki.server.certPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: true },
    (request, response) => response.end(`hello ${(request.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN}`),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(options: https.RequestOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = https.get({ host: '127.0.0.1', port, path: '/', ca: pki.ca.certPem, ...options }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
}

describe('the test PKI', () => {
  it('gives a NASH PKCS#12 file that a server demanding client certificates accepts', async () => {
    await expect(get({ pfx: pki.nash.pfx, passphrase: pki.nash.passphrase })).resolves.toMatch(/^hello general\.\d{16}\.id\.electronichealth\.net\.au$/);
  });

  it('makes a client from another CA fail the handshake', async () => {
    const stranger = issueNashCertificate(createTestCa('another CA'));
    await expect(get({ pfx: stranger.pfx, passphrase: stranger.passphrase })).rejects.toThrow();
    await expect(get({})).rejects.toThrow();
  });

  it('issues certificates that chain to its CA, with the NASH validity asked for', () => {
    const ca = new X509Certificate(pki.ca.certPem);
    for (const pair of [pki.server, pki.hiSigner, pki.nash]) expect(new X509Certificate(pair.certPem).checkIssued(ca)).toBe(true);
    const short = createTestPki({ nashValidDays: 10 });
    const days = (Date.parse(new X509Certificate(short.nash.certPem).validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(9);
    expect(days).toBeLessThan(11);
  });
});
