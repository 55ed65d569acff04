// The one answer table, as a table of cases: hand-written answers in the shape ADHA's clients
// parse (signed with the test HI signing certificate where the service signs), each read and
// mapped as the adapter does, to found / no match / rejection / unreachable.
import { beforeAll, describe, expect, it } from 'vitest';
import { HiServiceRejectedError, HiServiceUnreachableError } from '../hi-service-port.ts';
import { IHI_ANSWER_READERS, mapSoapAnswer, providerAnswerReaders } from './hi-soap-answers.ts';
import { readSoapAnswer } from './hi-soap-read.ts';
import { SEARCH_IHI, SEARCH_PROVIDER_INDIVIDUAL } from './hi-soap-wire.ts';
import { createTestCa, createTestPki, issueNashCertificate, type TestPki } from '../../../test/hi-service/test-pki.ts';
import { answerXml, faultXml, ihiResultXml, providerResultXml, serviceMessagesXml, TEST_MESSAGE_ID } from '../../../test/hi-service/soap/soap-answer-xml.ts';
import { spkiPinOf } from './hi-xml-signature.ts';
import { X509Certificate } from 'node:crypto';

let pki: TestPki;
let stranger: { keyPem: string; certPem: string };
beforeAll(() => {
  pki = createTestPki();
  stranger = issueNashCertificate(createTestCa('another CA'));
});

const HPII = '8003619166667284';
const IHI = '8003601240022579';
const OUR_MESSAGE_ID = TEST_MESSAGE_ID;
type Signer = 'hi' | 'stranger' | 'none';
type Expected = { result: unknown } | { rejected: [severity: string, code: string] } | { unreachable: RegExp };

interface AnswerCase {
  name: string;
  status?: number;
  contentType?: string;
  body: () => string;
  signer: Signer;
  expected: Expected;
}

function writeAnswer(test: AnswerCase): { status: number; contentType: string; body: string } {
  const signer = test.signer === 'hi' ? pki.hiSigner : test.signer === 'stranger' ? stranger : undefined;
  const raw = test.body();
  const body = raw.startsWith('<?xml') || !raw.startsWith('<') ? raw : answerXml(raw, signer);
  return { status: test.status ?? 200, contentType: test.contentType ?? 'application/soap+xml; charset=utf-8', body };
}

async function expectMapped(actual: () => unknown, expected: Expected): Promise<void> {
  if ('result' in expected) return expect(actual()).toStrictEqual(expected.result);
  if ('rejected' in expected) {
    let error: unknown;
    try {
      actual();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(HiServiceRejectedError);
    expect(error).toMatchObject({ severity: expected.rejected[0], code: expected.rejected[1] });
    return;
  }
  expect(actual).toThrow(HiServiceUnreachableError);
  expect(actual).toThrow(expected.unreachable);
  expect(actual).not.toThrow(HiServiceRejectedError);
}

const messages = serviceMessagesXml;
const found = (status?: string, recordStatus?: string) => ({ kind: 'found', ihi_number: IHI, ...(status ? { ihi_status: status } : {}), ...(recordStatus ? { ihi_record_status: recordStatus } : {}) });

const IHI_CASES: AnswerCase[] = [
  { name: 'a found IHI, statuses upper-cased', body: () => ihiResultXml({ ihi: IHI, status: 'Active', recordStatus: 'Verified' }), signer: 'hi', expected: { result: found('ACTIVE', 'VERIFIED') } },
  { name: 'a found IHI in an answer relating to our request', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { relatesTo: OUR_MESSAGE_ID }), signer: 'hi', expected: { result: found() } },
  { name: 'a found IHI with other statuses', body: () => ihiResultXml({ ihi: IHI, status: 'Deceased', recordStatus: 'Provisional' }), signer: 'hi', expected: { result: found('DECEASED', 'PROVISIONAL') } },
  { name: 'a found IHI without statuses', body: () => ihiResultXml({ ihi: IHI }), signer: 'hi', expected: { result: found() } },
  { name: 'a found IHI with a warning message', body: () => ihiResultXml({ ihi: IHI, status: 'Active', messages: messages([['01612', 'Warning']]) }), signer: 'hi', expected: { result: found('ACTIVE') } },
  { name: 'a result with the informational no-match message', body: () => ihiResultXml({ messages: messages([['01439', 'Informational']]) }), signer: 'hi', expected: { result: { kind: 'no_match' } } },
  { name: 'a result with neither IHI nor messages', body: () => ihiResultXml({}), signer: 'hi', expected: { result: { kind: 'no_match' } } },
  { name: 'an informational no-match fault, signed', status: 500, body: () => faultXml('Sender', messages([['01439', 'Informational']])), signer: 'hi', expected: { result: { kind: 'no_match' } } },
  { name: 'an informational no-match fault, unsigned', status: 500, body: () => faultXml('Sender', messages([['01439', 'Informational']])), signer: 'none', expected: { result: { kind: 'no_match' } } },
  { name: 'an Error fault', status: 500, body: () => faultXml('Sender', messages([['01966', 'Error']])), signer: 'hi', expected: { rejected: ['Error', '01966'] } },
  { name: 'a Fatal fault, unsigned', status: 500, body: () => faultXml('Receiver', messages([['02000', 'Fatal'], ['01966', 'Error']])), signer: 'none', expected: { rejected: ['Fatal', '02000'] } },
  { name: 'a result carrying an Error message', body: () => ihiResultXml({ ihi: IHI, messages: messages([['01966', 'Error']]) }), signer: 'hi', expected: { rejected: ['Error', '01966'] } },
  { name: 'a gateway fault without service messages', status: 500, body: () => faultXml('Receiver'), signer: 'none', expected: { rejected: ['Fatal', 'soap:Receiver'] } },
  { name: 'a sender fault without service messages', status: 400, body: () => faultXml('Sender'), signer: 'none', expected: { rejected: ['Error', 'soap:Sender'] } },
  { name: 'a message of unknown severity, taken at its worst', status: 500, body: () => faultXml('Sender', messages([['01439', 'Informational']]).replace('<ce:severity>Informational</ce:severity>', '<ce:severity>Odd</ce:severity>')), signer: 'none', expected: { rejected: ['Fatal', '01439'] } },
  { name: 'a code that is not a short token', status: 500, body: () => faultXml('Sender', messages([['WOOD Jessica 2002-12-12', 'Error']])), signer: 'none', expected: { rejected: ['Error', 'unreadable-code'] } },
  { name: 'an unsigned result', body: () => ihiResultXml({ ihi: IHI, status: 'Active' }), signer: 'none', expected: { unreachable: /not signed/ } },
  { name: 'a result signed by another CA', body: () => ihiResultXml({ ihi: IHI }), signer: 'stranger', expected: { unreachable: /does not chain/ } },
  { name: 'a result changed after signing', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner).replace(IHI, '8003608666670997'), signer: 'hi', expected: { unreachable: /does not verify/ } },
  { name: 'a signed fault changed after signing', status: 500, body: () => answerXml(faultXml('Sender', messages([['01966', 'Error']])), pki.hiSigner).replace('01966', '01439'), signer: 'hi', expected: { unreachable: /does not verify/ } },
  { name: 'a result whose IHI fails its check digit', body: () => ihiResultXml({ ihi: '8003601240022578' }), signer: 'hi', expected: { unreachable: /not a valid IHI/ } },
  { name: 'a result with an HPI-I where the IHI goes', body: () => ihiResultXml({ ihi: HPII }), signer: 'hi', expected: { unreachable: /not a valid IHI/ } },
  { name: 'an unknown IHI status', body: () => ihiResultXml({ ihi: IHI, status: 'Dormant' }), signer: 'hi', expected: { unreachable: /unknown ihiStatus/ } },
  { name: 'truncated XML', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner).slice(0, 400), signer: 'hi', expected: { unreachable: /without a SOAP 1.2 envelope/ } },
  { name: 'HTTP 503 with an HTML page', status: 503, contentType: 'text/html', body: () => 'Service Unavailable', signer: 'none', expected: { unreachable: /HTTP 503/ } },
  { name: 'HTTP 502 with no body', status: 502, body: () => '', signer: 'none', expected: { unreachable: /HTTP 502/ } },
  { name: 'an envelope without the response element', body: () => '<x:other xmlns:x="urn:x"/>', signer: 'hi', expected: { unreachable: /no result/ } },
  { name: 'an answer relating to another request', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner).replace('<soap:Header>', '<soap:Header><wsa:RelatesTo xmlns:wsa="http://www.w3.org/2005/08/addressing">urn:uuid:00000000-0000-4000-8000-000000000000</wsa:RelatesTo>'), signer: 'hi', expected: { unreachable: /another request/ } },
  // A recorded answer, validly signed, replayed for another request: no RelatesTo, or a stale, future or unsigned timestamp.
  { name: 'a signed result that names no request it relates to', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { relatesTo: null }), signer: 'hi', expected: { unreachable: /does not name the request it relates to/ } },
  { name: 'a signed result without a timestamp', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { created: null }), signer: 'hi', expected: { unreachable: /no signed timestamp/ } },
  { name: 'a signed result whose timestamp is not signed', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { signTimestamp: false }), signer: 'hi', expected: { unreachable: /no signed timestamp/ } },
  { name: 'a signed result whose timestamp is 6 minutes old', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { created: new Date(Date.now() - 6 * 60_000) }), signer: 'hi', expected: { unreachable: /timestamp is stale/ } },
  { name: 'a signed result whose timestamp is 6 minutes ahead', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { created: new Date(Date.now() + 6 * 60_000) }), signer: 'hi', expected: { unreachable: /timestamp is in the future/ } },
  { name: 'a signed result whose timestamp is 4 minutes old (within the margin)', body: () => answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner, { created: new Date(Date.now() - 4 * 60_000) }), signer: 'hi', expected: { result: found() } },
  { name: 'HTTP 500 with a signed result but no fault', status: 500, body: () => ihiResultXml({ ihi: IHI }), signer: 'hi', expected: { unreachable: /HTTP 500 without a fault/ } },
];

describe('IHI search answers', () => {
  it.each(IHI_CASES)('$name', async (test) => {
    const read = readSoapAnswer(writeAnswer(test), SEARCH_IHI, { trustedCaPem: pki.ca.certPem, now: new Date() }, OUR_MESSAGE_ID);
    await expectMapped(() => mapSoapAnswer(read, IHI_ANSWER_READERS), test.expected);
  });
});

const PROVIDER_CASES: AnswerCase[] = [
  { name: 'an active HPI-I (A)', body: () => providerResultXml({ hpii: HPII, status: 'A' }), signer: 'hi', expected: { result: { kind: 'verified' } } },
  { name: 'an active HPI-I (Active)', body: () => providerResultXml({ hpii: HPII, status: 'Active' }), signer: 'hi', expected: { result: { kind: 'verified' } } },
  { name: 'a deactivated HPI-I', body: () => providerResultXml({ hpii: HPII, status: 'D' }), signer: 'hi', expected: { result: { kind: 'inactive' } } },
  { name: 'a retired HPI-I', body: () => providerResultXml({ hpii: HPII, status: 'Retired' }), signer: 'hi', expected: { result: { kind: 'inactive' } } },
  { name: 'an HPI-I without a status', body: () => providerResultXml({ hpii: HPII }), signer: 'hi', expected: { result: { kind: 'no_status' } } },
  { name: 'an HPI-I with a status erx does not know', body: () => providerResultXml({ hpii: HPII, status: 'X' }), signer: 'hi', expected: { result: { kind: 'no_status' } } },
  { name: 'no record (informational)', body: () => providerResultXml({ messages: messages([['WSE0035', 'Informational']]) }), signer: 'hi', expected: { result: { kind: 'no_match' } } },
  { name: 'an Error fault', status: 500, body: () => faultXml('Sender', messages([['01611', 'Error']])), signer: 'hi', expected: { rejected: ['Error', '01611'] } },
  { name: 'another HPI-I than the one asked about', body: () => providerResultXml({ hpii: '8003610001647326', status: 'A' }), signer: 'hi', expected: { unreachable: /not the one asked about/ } },
  { name: 'an unsigned result', body: () => providerResultXml({ hpii: HPII, status: 'A' }), signer: 'none', expected: { unreachable: /not signed/ } },
];

describe('provider search answers', () => {
  it.each(PROVIDER_CASES)('$name', async (test) => {
    const read = readSoapAnswer(writeAnswer(test), SEARCH_PROVIDER_INDIVIDUAL, { trustedCaPem: pki.ca.certPem, now: new Date() }, OUR_MESSAGE_ID);
    await expectMapped(() => mapSoapAnswer(read, providerAnswerReaders(HPII)), test.expected);
  });
});

describe('a pinned signer (ERX_HI_SIGNER_SPKI)', () => {
  const read = (signer: { keyPem: string; certPem: string }, pins: string[]) =>
    readSoapAnswer(writeAnswer({ name: '', body: () => answerXml(ihiResultXml({ ihi: IHI }), signer), signer: 'none', expected: { result: null } }), SEARCH_IHI, { trustedCaPem: pki.ca.certPem, signerSpkiPins: pins, now: new Date() }, OUR_MESSAGE_ID);
  const pinOf = (pem: string) => spkiPinOf(new X509Certificate(pem));

  it('takes an answer signed by the pinned key', async () => {
    await expectMapped(() => mapSoapAnswer(read(pki.hiSigner, [pinOf(pki.hiSigner.certPem)]), IHI_ANSWER_READERS), { result: found() });
  });

  it('refuses an answer signed by another key of the same CA, under the same subject name', async () => {
    // The impostor chains to ERX_HI_CA and carries the service's subject: only the pin tells it apart.
    expect(new X509Certificate(pki.otherHiSigner.certPem).subject).toBe(new X509Certificate(pki.hiSigner.certPem).subject);
    await expectMapped(() => mapSoapAnswer(read(pki.otherHiSigner, []), IHI_ANSWER_READERS), { result: found() });
    await expectMapped(() => mapSoapAnswer(read(pki.otherHiSigner, [pinOf(pki.hiSigner.certPem)]), IHI_ANSWER_READERS), { unreachable: /not the pinned HI Service key/ });
  });

  it('takes either of two pins during a key rollover', async () => {
    const pins = [pinOf(pki.otherHiSigner.certPem), pinOf(pki.hiSigner.certPem)];
    await expectMapped(() => mapSoapAnswer(read(pki.hiSigner, pins), IHI_ANSWER_READERS), { result: found() });
  });
});
