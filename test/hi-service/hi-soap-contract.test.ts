// The HI contract suite, unchanged, against the SOAP adapter talking to the protocol-level fake
// HI Service over mutual TLS. The fake refuses anything the real gateway would; every refusal
// fails the test that caused it, with the fake's reason. With ERX_HI_XSD_DIR set to the licensed
// HI Service schemas, every request is also validated against them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSoapHiService, loadNashCertificate } from '../../src/hi-service/soap/index.ts';
import { HI_DEMO_FIXTURES } from '../../src/hi-service/hi-demo-fixtures.ts';
import { buildProviderVerificationRequest, describeHiServiceContract, HI_CONTEXT } from './hi-service-contract.ts';
import { findXsdDir, startFakeHiService, type FakeHiService } from './fake-hi-service/index.ts';
import { createTestPki } from './test-pki.ts';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';

const pki = createTestPki();
const xsd = findXsdDir();
let fake: FakeHiService;
let violationsSeen = 0;

beforeAll(async () => {
  fake = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki });
});
afterAll(() => fake.close());

// A request the fake refused fails the test that sent it, naming why.
afterEach(() => {
  const fresh = fake.violations().slice(violationsSeen);
  violationsSeen += fresh.length;
  expect(fresh, 'requests the fake HI Service refused').toEqual([]);
});

function makeAdapter() {
  return createSoapHiService({
    endpoint: fake.url,
    certificate: loadNashCertificate(pki.nash.pfx, pki.nash.passphrase),
    trustedCaPem: pki.ca.certPem,
    product: { vendorQualifier: 'http://ns.medicareaustralia.gov.au/mcaVendorId/1.0', vendorId: 'ERX00001', productName: 'erx', productVersion: '0.1.0' },
    timeoutMs: 10_000,
    signatureAlgorithm: 'rsa-sha1',
    digestAlgorithm: 'sha1',
  });
}

describeHiServiceContract('SOAP adapter through the fake HI Service (mutual TLS)', makeAdapter);

describe('SOAP adapter through the fake HI Service: what the service receives', () => {
  it('names the HPI-O and the acting user in every request, with no FaultTo', async () => {
    const before = fake.received.length;
    await makeAdapter().verifyProvider(buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified), HI_CONTEXT);
    const seen = fake.received.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ operation: 'searchForProviderIndividual', hpio: HI_CONTEXT.hpio, userId: HI_CONTEXT.userId, answered: 'result' });
    expect(seen[0]!.headerNames).toEqual(expect.arrayContaining(['wsa:Action', 'wsa:MessageID', 'wsa:To', 'hi:product', 'hi:signature', 'hi:timestamp', 'hi:user', 'hi:hpio']));
    expect(seen[0]!.headerNames).not.toContain('wsa:FaultTo');
  });

  it.skipIf('skipReason' in xsd)(
    `validates every request against the HI Service schemas${'skipReason' in xsd ? ` (skipped: ${xsd.skipReason})` : ''}`,
    async () => {
      expect(fake.xsdSkipReason).toBeUndefined();
      await makeAdapter().verifyProvider(buildProviderVerificationRequest(HI_DEMO_PROVIDERS.verified), HI_CONTEXT);
      expect(fake.violations()).toEqual([]);
    },
  );
});
