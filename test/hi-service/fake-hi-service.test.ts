// The fake HI Service itself, with hand-built signed requests: it answers correct requests in
// the service's shape (signed), and refuses each protocol violation with a fault naming it.
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import {
  buildHandBuiltRequest,
  ihiSearchPayload,
  postToFake,
  providerSearchPayload,
  type HandBuiltRequest,
} from './fake-hi-service/hand-built-request.ts';
import { startFakeHiService, type FakeHiService } from './fake-hi-service/index.ts';
import { createTestCa, createTestPki, issueNashCertificate, type TestPki } from './test-pki.ts';

const patient = HI_DEMO_PATIENTS.activeVerified;
const demographics = { family: patient.family_name, given: patient.given_name, dob: patient.date_of_birth, sex: patient.sex };
const medicarePayload = ihiSearchPayload({ medicare: { card: patient.medicare_card_number, irn: patient.medicare_irn }, demographics });

let pki: TestPki;
let fake: FakeHiService;

beforeAll(async () => {
  pki = createTestPki();
  fake = await startFakeHiService({ fixtures: HI_DEMO_FIXTURES, pki, xsdDir: null });
});
afterAll(() => fake.close());

function send(changes: Partial<HandBuiltRequest> = {}, transport: { contentType?: string; client?: { keyPem: string; certPem: string } | null } = {}) {
  const xml = buildHandBuiltRequest({ url: fake.url, operation: 'searchIHI', payloadXml: medicarePayload, signer: pki.nash, ...changes });
  const client = transport.client === undefined ? pki.nash : transport.client;
  return postToFake({ url: fake.url, xml, caPem: pki.ca.certPem, client, contentType: transport.contentType });
}

function textOf(xml: string, localName: string): string | undefined {
  return new RegExp(`<(?:\\w+:)?${localName}\\b[^>]*>([^<]*)<`).exec(xml)?.[1];
}

function verifyAnswerSignature(xml: string, certPem: string): boolean {
  const document = new DOMParser().parseFromString(xml, 'text/xml');
  const signature = document.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0]!;
  const verifier = new SignedXml({ publicCert: certPem, getCertFromKeyInfo: () => null });
  verifier.loadSignature(signature as unknown as Node);
  return verifier.checkSignature(xml);
}

describe('fake HI Service: answers', () => {
  it('finds a patient and answers in the service shape, signed by the HI signing certificate', async () => {
    const answer = await send();
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/soap\+xml/);
    expect(textOf(answer.body, 'ihiNumber')).toBe(`http://ns.electronichealth.net.au/id/hi/ihi/1.0/${patient.ihi_number}`);
    expect(textOf(answer.body, 'ihiStatus')).toBe('Active');
    expect(textOf(answer.body, 'ihiRecordStatus')).toBe('Verified');
    expect(textOf(answer.body, 'Action')).toBe('http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0/ConsumerSearchIHIPortType/searchIHIResponse');
    expect(verifyAnswerSignature(answer.body, pki.hiSigner.certPem)).toBe(true);
    expect(answer.body).toMatch(/<ds:Reference URI="#body-/);
    expect(answer.body).toMatch(/<ds:Reference URI="#product-/);
  });

  it('answers a search that finds no one with the informational service message as a result', async () => {
    const payload = ihiSearchPayload({ medicare: { card: patient.medicare_card_number, irn: patient.medicare_irn }, demographics: { ...demographics, family: 'Woods' } });
    const answer = await send({ payloadXml: payload });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('searchIHIResult');
    expect(textOf(answer.body, 'highestSeverity')).toBe('Informational');
    expect(textOf(answer.body, 'ihiNumber')).toBeUndefined();
  });

  it('answers HTTP 503 for a fixture marked unreachable', async () => {
    const offline = HI_DEMO_PATIENTS.unreachable;
    const payload = ihiSearchPayload({ ihiNumber: offline.ihi_number, demographics: { family: offline.family_name, given: offline.given_name, dob: offline.date_of_birth, sex: offline.sex } });
    expect((await send({ payloadXml: payload })).status).toBe(503);
  });

  it.each([
    ['verified', HI_DEMO_PROVIDERS.verified, 'A'],
    ['found without status', HI_DEMO_PROVIDERS.withoutStatus, undefined],
  ])('answers a provider search: %s', async (_label, provider, status) => {
    const payloadXml = providerSearchPayload({ hpii: provider.hpii_number, family: provider.family_name, given: provider.given_name, dob: provider.date_of_birth, sex: provider.sex });
    const answer = await send({ operation: 'searchForProviderIndividual', payloadXml });
    expect(answer.status).toBe(200);
    expect(textOf(answer.body, 'hpiiNumber')).toBe(`http://ns.electronichealth.net.au/id/hi/hpii/1.0/${provider.hpii_number}`);
    expect(textOf(answer.body, 'status')).toBe(status);
    expect(verifyAnswerSignature(answer.body, pki.hiSigner.certPem)).toBe(true);
  });

  it('answers a fixture the service refuses with a signed fault carrying its severity and code', async () => {
    const refused = HI_DEMO_PATIENTS.rejected;
    const payload = ihiSearchPayload({ medicare: { card: refused.medicare_card_number, irn: refused.medicare_irn }, demographics: { family: refused.family_name, given: refused.given_name, dob: refused.date_of_birth, sex: refused.sex } });
    const answer = await send({ payloadXml: payload });
    expect(answer.status).toBe(500);
    expect(answer.body).toMatch(new RegExp(`<ce:code>${refused.fault_code}</ce:code><ce:severity>Error</ce:severity>`));
    expect(textOf(answer.body, 'Action')).toMatch(/searchIHI\/Fault\/standardError$/);
    expect(verifyAnswerSignature(answer.body, pki.hiSigner.certPem)).toBe(true);
  });

  it.each([
    ['deactivated', HI_DEMO_PROVIDERS.deactivated, 'D'],
    ['retired', HI_DEMO_PROVIDERS.retired, 'R'],
  ])('answers a %s HPI-I with its status code', async (_label, provider, status) => {
    const payloadXml = providerSearchPayload({ hpii: provider.hpii_number, family: provider.family_name, given: provider.given_name, dob: provider.date_of_birth, sex: provider.sex });
    expect(textOf((await send({ operation: 'searchForProviderIndividual', payloadXml })).body, 'status')).toBe(status);
  });

  it('finds by international address, reading the SACC country code', async () => {
    const overseas = HI_DEMO_PATIENTS.internationalAddressOnly;
    const address = overseas.international_address;
    const key =
      `<ca:internationalAddress><ac:internationalStateProvince>${address.state_province}</ac:internationalStateProvince><ac:country>2102</ac:country>` +
      `<ac:internationalPostcode>${address.postcode}</ac:internationalPostcode><ca:internationalAddressLine>${address.address_line}</ca:internationalAddressLine></ca:internationalAddress>`;
    const payload = ihiSearchPayload({ demographics: { family: overseas.family_name, given: overseas.given_name, dob: overseas.date_of_birth, sex: overseas.sex } }).concat(key);
    const answer = await send({ payloadXml: payload });
    expect(textOf(answer.body, 'ihiNumber')).toBe(`http://ns.electronichealth.net.au/id/hi/ihi/1.0/${overseas.ihi_number}`);
    const unknownCountry = await send({ payloadXml: payload.replace('<ac:country>2102<', '<ac:country>0000<') });
    expect(textOf(unknownCountry.body, 'Text')).toMatch(/country 0000 is not a SACC code/);
  });

  it.each([
    ['the type code as the fixture holds it', HI_DEMO_PATIENTS.activeVerified, 'Smith', 'ST'],
    ['the type code for a word the fixture holds', HI_DEMO_PATIENTS.streetAddressOnly, 'Wattle', 'GR'],
  ])('finds by Australian street address with %s', async (_label, person, streetName, streetType) => {
    const address = person.australian_street_address;
    const key =
      `<ca:australianStreetAddress><ac:state>${address.state}</ac:state><ac:postcode>${address.postcode}</ac:postcode><ca:suburb>${address.suburb}</ca:suburb>` +
      `<ac:streetNumber>${address.street_number}</ac:streetNumber><ac:streetName>${streetName}</ac:streetName><ac:streetType>${streetType}</ac:streetType></ca:australianStreetAddress>`;
    const payload = ihiSearchPayload({ demographics: { family: person.family_name, given: person.given_name, dob: person.date_of_birth, sex: person.sex } }).concat(key);
    expect(textOf((await send({ payloadXml: payload })).body, 'ihiNumber')).toContain(person.ihi_number);
  });

  it('finds by mobile number (electronicCommunication, medium M)', async () => {
    const mobile = HI_DEMO_PATIENTS.mobileOnly;
    const payload = ihiSearchPayload({ mobile: mobile.phone, demographics: { family: mobile.family_name, given: mobile.given_name, dob: mobile.date_of_birth, sex: mobile.sex } });
    expect(textOf((await send({ payloadXml: payload })).body, 'ihiNumber')).toContain(mobile.ihi_number);
  });

  it('records who asked (HPI-O, user id, headers, client certificate), logging nothing', async () => {
    const before = fake.received.length;
    const logs = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method));
    await send({ hpio: '8003621566684455', userId: 'user-42' });
    for (const log of logs) {
      expect(log).not.toHaveBeenCalled();
      log.mockRestore();
    }
    const seen = fake.received[before]!;
    expect(seen).toMatchObject({ operation: 'searchIHI', hpio: '8003621566684455', userId: 'user-42', answered: 'result', signatureMethod: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1' });
    expect(seen.headerNames).toEqual(['wsa:Action', 'wsa:MessageID', 'wsa:To', 'hi:product', 'hi:signature', 'hi:timestamp', 'hi:user', 'hi:hpio']);
    expect(seen.clientCertificateSubject).toContain('general.8003629900000000.id.electronichealth.net.au');
    expect(seen.violation).toBeUndefined();
  });
});

describe('fake HI Service: refusals', () => {
  const misorderedPayload = medicarePayload.replace(
    /(<ce:dateOfBirth>.*<\/ce:sex>)(<n:familyName>.*<\/n:familyName>)/,
    '$2$1',
  );
  const cases: [string, Partial<HandBuiltRequest>, RegExp][] = [
    ['a FaultTo header', { faultTo: true }, /FaultTo/],
    ['a wrong action', { action: 'http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0/ConsumerSearchIHIPortType/searchIHI' }, /wsa:Action .* names no operation/],
    ['the provider action on an IHI search body', { action: 'http://ns.electronichealth.net.au/hi/svc/ProviderSearchForProviderIndividual/5.0.0/ProviderSearchForProviderIndividualPortType/searchForProviderIndividualRequest' }, /Body must hold exactly one .*searchForProviderIndividual/],
    ['no hpio header', { hpio: null }, /header hi:hpio is missing/],
    ['an invalid HPI-O', { hpio: '8003621566684456' }, /not a valid HPI-O/],
    ['no user header', { omit: ['user'], signed: ['Body', 'timestamp'] }, /header hi:user is missing/],
    ['no timestamp', { omit: ['timestamp'], signed: ['Body', 'user'] }, /header hi:timestamp is missing/],
    ['a stale timestamp', { created: new Date(Date.now() - 3_600_000) }, /timestamp\/created is not fresh/],
    ['a MessageID that is not a urn:uuid', { messageId: 'id-1' }, /MessageID is not a urn:uuid/],
    ['a To naming another endpoint', { to: 'https://example.invalid/soap/services/' }, /wsa:To .* does not name the endpoint/],
    ['no signature', { omit: ['signature'] }, /header hi:signature is missing/],
    ['a signature not covering the timestamp', { signed: ['Body', 'user'] }, /does not cover timestamp/],
    ['elements out of order', { payloadXml: misorderedPayload }, /dateOfBirth is out of order|familyName is out of order/],
    ['two search keys', { payloadXml: ihiSearchPayload({ ihiNumber: patient.ihi_number, medicare: { card: patient.medicare_card_number, irn: patient.medicare_irn }, demographics }) }, /more than one search key/],
    ['no search key', { payloadXml: ihiSearchPayload({ demographics }) }, /minimum search criteria/],
    ['an unqualified IHI', { payloadXml: ihiSearchPayload({ demographics }).replace('<ce:dateOfBirth>', `<cc:ihiNumber>${patient.ihi_number}</cc:ihiNumber><ce:dateOfBirth>`) }, /qualified identifier/],
  ];

  it.each(cases)('refuses %s with a SOAP fault naming the violation', async (_label, changes, reason) => {
    const before = fake.received.length;
    const answer = await send(changes);
    expect(answer.status).toBe(500);
    expect(answer.body).toContain('<soap:Fault>');
    expect(textOf(answer.body, 'Text')).toMatch(reason);
    expect(textOf(answer.body, 'severity')).toBe('Error');
    expect(fake.received[before]!.violation).toMatch(reason);
  });

  it('refuses a request whose signed body was altered after signing', async () => {
    const xml = buildHandBuiltRequest({ url: fake.url, operation: 'searchIHI', payloadXml: medicarePayload, signer: pki.nash }).replace('<ce:sex>F</ce:sex>', '<ce:sex>M</ce:sex>');
    const answer = await postToFake({ url: fake.url, xml, caPem: pki.ca.certPem, client: pki.nash });
    expect(textOf(answer.body, 'Text')).toMatch(/signature does not verify/);
  });

  it('refuses a request signed by a certificate other than the TLS client certificate', async () => {
    const other = issueNashCertificate(createTestCa('another CA'));
    expect(textOf((await send({ signer: other })).body, 'Text')).toMatch(/not the TLS client certificate/);
  });

  it('refuses SOAP 1.1 (text/xml)', async () => {
    expect(textOf((await send({}, { contentType: 'text/xml; charset=utf-8' })).body, 'Text')).toMatch(/SOAP 1\.1/);
  });

  it('refuses a content type action that differs from wsa:Action', async () => {
    const answer = await send({}, { contentType: 'application/soap+xml; charset=utf-8; action="urn:other"' });
    expect(textOf(answer.body, 'Text')).toMatch(/content type action differs/);
  });

  it('rejects the TLS handshake without a client certificate', async () => {
    await expect(send({}, { client: null })).rejects.toThrow(/certificate|socket hang up|ECONNRESET/i);
  });

  it('rejects the TLS handshake with a client certificate from another CA', async () => {
    const other = issueNashCertificate(createTestCa('another CA'));
    await expect(send({ signer: other }, { client: other })).rejects.toThrow(/certificate|socket hang up|ECONNRESET|unknown ca/i);
  });
});
