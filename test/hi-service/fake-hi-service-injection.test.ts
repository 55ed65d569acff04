// The fake's injected answers, as raw HTTP (what each one puts on the wire), and its optional
// validation of requests against schemas (ERX_HI_XSD_DIR), exercised with schemas the test writes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { buildHandBuiltRequest, ihiSearchPayload, postToFake } from './fake-hi-service/hand-built-request.ts';
import { findXsdDir, startFakeHiService, type FakeHiService, type InjectedFault } from './fake-hi-service/index.ts';
import { createTestPki, type TestPki } from './test-pki.ts';

const patient = HI_DEMO_PATIENTS.activeVerified;
const payloadXml = ihiSearchPayload({
  medicare: { card: patient.medicare_card_number, irn: patient.medicare_irn },
  demographics: { family: patient.family_name, given: patient.given_name, dob: patient.date_of_birth, sex: patient.sex },
});

let pki: TestPki;
let fake: FakeHiService;

beforeAll(async () => {
  pki = createTestPki();
  fake = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: null });
});
afterAll(() => fake.close());

function send(target: FakeHiService = fake) {
  const xml = buildHandBuiltRequest({ url: target.url, operation: 'searchIHI', payloadXml, signer: pki.nash });
  return postToFake({ url: target.url, xml, caPem: pki.ca.certPem, client: pki.nash });
}

describe('fake HI Service: injected answers', () => {
  const cases: [InjectedFault, number, (body: string) => void][] = [
    [{ kind: 'error-fault', code: '01966' }, 500, (body) => expect(body).toMatch(/<ce:code>01966<\/ce:code><ce:severity>Error</)],
    [{ kind: 'fatal-fault' }, 500, (body) => expect(body).toMatch(/<ce:highestSeverity>Fatal</)],
    [{ kind: 'no-match-fault' }, 500, (body) => expect(body).toMatch(/<soap:Fault>.*<ce:highestSeverity>Informational</)],
    [{ kind: 'no-match-result' }, 200, (body) => expect(body).toMatch(/searchIHIResult.*<ce:highestSeverity>Informational</)],
    [{ kind: 'gateway-fault' }, 500, (body) => expect(body).not.toMatch(/Signature|ce:product/)],
    [{ kind: 'http-503' }, 503, (body) => expect(body).not.toContain('<')],
    [{ kind: 'truncated-xml' }, 200, (body) => expect(body).not.toMatch(/<\/soap:Envelope>$/)],
    [{ kind: 'unsigned-result' }, 200, (body) => expect(body).not.toContain('Signature')],
  ];

  it.each(cases)('answers an injected $kind', async (fault, status, check) => {
    fake.injectNext(fault);
    const answer = await send();
    expect(answer.status).toBe(status);
    check(answer.body);
    expect(fake.received.at(-1)).toMatchObject({ answered: fault.kind });
  });

  it('answers a bad signature with another valid IHI under the original digests', async () => {
    fake.injectNext({ kind: 'bad-signature' });
    const answer = await send();
    expect(answer.body).toContain('ihi/1.0/8003608666670997');
    expect(answer.body).toContain('<ds:Signature');
  });

  it('injects for the next request only', async () => {
    fake.injectNext({ kind: 'http-503' });
    expect((await send()).status).toBe(503);
    expect((await send()).status).toBe(200);
  });

  it('holds a timed-out request open until the fake closes', async () => {
    const slow = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: null });
    slow.injectNext({ kind: 'timeout' });
    const pending = send(slow);
    let settled = false;
    void pending.then(() => (settled = true), () => (settled = true));
    await expect.poll(() => slow.received.length).toBe(1);
    expect(settled).toBe(false);
    await slow.close();
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});

describe('fake HI Service: validation against schemas (ERX_HI_XSD_DIR)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'erx-hi-xsd-'));
  const lax = '<xs:complexType><xs:sequence><xs:any namespace="##any" processContents="skip" minOccurs="0" maxOccurs="unbounded"/></xs:sequence><xs:anyAttribute processContents="skip"/></xs:complexType>';
  const schema = (namespace: string, elements: string) =>
    `<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${namespace}" elementFormDefault="qualified">${elements}</xs:schema>`;
  const common = ['product', 'user', 'hpio', 'timestamp'].map((name) => `<xs:element name="${name}">${lax}</xs:element>`).join('');
  mkdirSync(join(dir, 'common'));
  writeFileSync(join(dir, 'common', 'CommonCoreElements.xsd'), schema('http://ns.electronichealth.net.au/hi/xsd/common/CommonCoreElements/3.0', common));
  writeFileSync(join(dir, 'ConsumerSearchIHI.xsd'), schema('http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0', `<xs:element name="searchIHI">${lax}</xs:element>`));
  const strictDir = mkdtempSync(join(tmpdir(), 'erx-hi-xsd-strict-'));
  const demandsAnother = '<xs:complexType><xs:sequence><xs:element name="mustComeFirst" type="xs:string"/></xs:sequence></xs:complexType>';
  writeFileSync(join(strictDir, 'ConsumerSearchIHI.xsd'), schema('http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0', `<xs:element name="searchIHI">${demandsAnother}</xs:element>`));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(strictDir, { recursive: true, force: true });
  });

  it('accepts a request that the schemas accept', async () => {
    const validating = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: dir });
    try {
      expect((await send(validating)).status).toBe(200);
      expect(validating.violations()).toEqual([]);
    } finally {
      await validating.close();
    }
  });

  it('refuses a request that the schemas refuse, naming the schema error', async () => {
    const validating = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: strictDir });
    try {
      const answer = await send(validating);
      expect(answer.status).toBe(500);
      expect(validating.violations()[0]).toMatch(/^XSD: .*mustComeFirst/);
    } finally {
      await validating.close();
    }
  });

  it('names why validation is skipped when ERX_HI_XSD_DIR is unset or empty', () => {
    expect(findXsdDir({})).toEqual({ skipReason: expect.stringMatching(/ERX_HI_XSD_DIR is not set/) });
    expect(findXsdDir({ ERX_HI_XSD_DIR: join(dir, 'missing') })).toEqual({ skipReason: expect.stringMatching(/does not exist/) });
    expect(findXsdDir({ ERX_HI_XSD_DIR: dir })).toEqual({ dir });
  });
});
