// Fault injection through the SOAP adapter: each way the HI Service (or what stands in front of
// it) can answer maps to the port's outcome: no match, a typed rejection with the service's
// severity and code, or "unreachable" for transport failures, malformed XML and answers whose
// signature cannot be trusted. An unsigned gateway fault is still read as a fault.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { createSoapHiService, loadNashCertificate, type SoapHiSettings } from '../../src/hi-service/soap/index.ts';
import { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { HiServiceRejectedError, HiServiceUnreachableError } from '../../src/hi-service/hi-service-port.ts';
import { classifyHiFailure } from '../../src/hi-service/index.ts';
import { spkiPinOf } from '../../src/hi-service/soap/hi-xml-signature.ts';
import { buildIhiSearchRequest, buildProviderVerificationRequest, HI_CONTEXT } from './hi-service-contract.ts';
import { startFakeHiService, type FakeHiService, type InjectedFault } from './fake-hi-service/index.ts';
import { createTestCa, createTestPki, issueNashCertificate } from './test-pki.ts';

const pki = createTestPki();
let fake: FakeHiService;

beforeAll(async () => {
  fake = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: null });
});
afterAll(() => fake.close());

function makeAdapter(changes: Partial<SoapHiSettings> = {}) {
  return createSoapHiService({
    endpoint: fake.url,
    certificate: loadNashCertificate(pki.nash.pfx, pki.nash.passphrase),
    trustedCaPem: pki.ca.certPem,
    signerSpkiPins: [spkiPinOf(new X509Certificate(pki.hiSigner.certPem))],
    product: { vendorQualifier: 'http://ns.medicareaustralia.gov.au/mcaVendorId/1.0', vendorId: 'ERX00001', productName: 'erx', productVersion: '0.1.0' },
    timeoutMs: 5_000,
    signatureAlgorithm: 'rsa-sha1',
    digestAlgorithm: 'sha1',
    ...changes,
  });
}

const searchFound = () => makeAdapter().searchIhi(buildIhiSearchRequest(HI_DEMO_PATIENTS.activeVerified, 'medicare'), HI_CONTEXT);
const verifyFound = () => makeAdapter().verifyProvider(buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified), HI_CONTEXT);

async function expectUnreachableOnly(call: Promise<unknown>): Promise<void> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HiServiceUnreachableError);
  expect(error).not.toBeInstanceOf(HiServiceRejectedError);
}

describe('SOAP adapter: injected service answers', () => {
  it.each([
    [{ kind: 'error-fault', code: '01966' }, 'Error', '01966'],
    [{ kind: 'fatal-fault', code: 'WSE9999' }, 'Fatal', 'WSE9999'],
    [{ kind: 'gateway-fault', code: 'ESB0001' }, 'Error', 'ESB0001'],
  ] as [InjectedFault, string, string][])('maps an injected $kind to a rejection (%s)', async (fault, severity, code) => {
    fake.injectNext(fault);
    const search = searchFound();
    await expect(search).rejects.toBeInstanceOf(HiServiceRejectedError);
    await expect(search).rejects.toMatchObject({ severity, code });
  });

  it.each(['no-match-fault', 'no-match-result'] as const)('maps an informational no-match (%s) to no_match', async (kind) => {
    fake.injectNext({ kind });
    expect(await searchFound()).toStrictEqual({ kind: 'no_match' });
    fake.injectNext({ kind });
    expect(await verifyFound()).toStrictEqual({ kind: 'no_match' });
  });

  it.each([
    'http-503',
    'truncated-xml',
    'bad-signature',
    'untrusted-signer',
    'unsigned-result',
  ] as const)('maps an injected %s to unreachable', async (kind) => {
    fake.injectNext({ kind });
    await expectUnreachableOnly(searchFound());
  });

  it.each([
    ['wrong-signer', /not the pinned HI Service key/],
    ['no-relates-to', /does not name the request it relates to/],
    ['stale-timestamp', /timestamp is stale/],
  ] as const)('refuses an injected %s (a forged or replayed answer) as an HI failure, unreachable', async (kind, reason) => {
    fake.injectNext({ kind });
    const error = await searchFound().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(classifyHiFailure(error)).toMatchObject({ outcome: 'unreachable', reason: expect.stringMatching(reason) });
  });

  it('takes an answer whose signed timestamp is a little old, within the margin for clock difference', async () => {
    fake.injectNext({ kind: 'stale-timestamp', ageMs: 60_000 });
    expect(await searchFound()).toMatchObject({ kind: 'found' });
  });

  it('maps a gateway fault without a service message to unreachable', async () => {
    fake.injectNext({ kind: 'gateway-fault', withoutServiceMessage: true });
    await expect(searchFound()).rejects.toBeInstanceOf(HiServiceUnreachableError);
  });

  it('gives up after its timeout when the service never answers', async () => {
    fake.injectNext({ kind: 'timeout' });
    const adapter = makeAdapter({ timeoutMs: 300 });
    await expectUnreachableOnly(adapter.searchIhi(buildIhiSearchRequest(HI_DEMO_PATIENTS.activeVerified, 'medicare'), HI_CONTEXT));
  });

  it('gives up when the call context is aborted', async () => {
    fake.injectNext({ kind: 'timeout' });
    const before = fake.received.length;
    const controller = new AbortController();
    const search = makeAdapter().searchIhi(buildIhiSearchRequest(HI_DEMO_PATIENTS.activeVerified, 'medicare'), { ...HI_CONTEXT, signal: controller.signal });
    await expect.poll(() => fake.received[before]?.answered).toBe('timeout');
    controller.abort();
    await expectUnreachableOnly(search);
  });

  it('reads the provider answer after a bad signature is gone (the injection is for one request)', async () => {
    fake.injectNext({ kind: 'bad-signature' });
    await expectUnreachableOnly(verifyFound());
    expect(await verifyFound()).toStrictEqual({ kind: 'verified' });
  });
});

describe('SOAP adapter: mutual TLS', () => {
  it('is unreachable when its client certificate is from another CA (the service rejects the handshake)', async () => {
    const stranger = issueNashCertificate(createTestCa('another CA'));
    const adapter = makeAdapter({ certificate: loadNashCertificate(stranger.pfx, stranger.passphrase) });
    await expectUnreachableOnly(adapter.verifyProvider(buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified), HI_CONTEXT));
  });

  it('is unreachable when the endpoint certificate is not from the trusted CA', async () => {
    const adapter = makeAdapter({ trustedCaPem: createTestCa('another CA').certPem });
    await expectUnreachableOnly(adapter.verifyProvider(buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified), HI_CONTEXT));
  });
});

describe('SOAP adapter: signature algorithms', () => {
  it('signs with RSA-SHA256 and SHA-256 digests when configured, and reads answers signed so', async () => {
    const strong = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: null, answerSignature: 'rsa-sha256' });
    try {
      const adapter = makeAdapter({ endpoint: strong.url, signatureAlgorithm: 'rsa-sha256', digestAlgorithm: 'sha256' });
      expect(await adapter.verifyProvider(buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified), HI_CONTEXT)).toStrictEqual({ kind: 'verified' });
      expect(strong.received[0]).toMatchObject({
        signatureMethod: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
        digestMethods: Array(3).fill('http://www.w3.org/2001/04/xmlenc#sha256'),
      });
      expect(strong.violations()).toEqual([]);
    } finally {
      await strong.close();
    }
  });
});
