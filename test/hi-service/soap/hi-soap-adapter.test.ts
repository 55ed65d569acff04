// The adapter over real mutual TLS against a tiny local HTTPS server that demands a client
// certificate from the test CA: what it posts (SOAP 1.2 content type with the action, a signed
// envelope, the NASH certificate), what it makes of the answer, and every way the call can fail
// to get one (timeout, the caller's abort, refused connection, TLS trust either way), all without
// writing a line to the log or a demographic into an error.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HiServicePort } from '../../../src/hi-service/index.ts';
import { createSoapHiService, loadNashCertificate, type SoapHiSettings } from '../../../src/hi-service/soap/index.ts';
import { HiServiceRejectedError, HiServiceUnreachableError, type IhiSearchRequest } from '../../../src/hi-service/hi-service-port.ts';
import { createTestCa, createTestPki, issueNashCertificate, type TestPki } from '../test-pki.ts';
import { answerXml, faultXml, ihiResultXml, providerResultXml, serviceMessagesXml, TEST_MESSAGE_ID } from './soap-answer-xml.ts';

type Responder = (request: IncomingMessage, body: string, response: ServerResponse) => void;
interface Seen {
  contentType?: string;
  clientSubject?: string;
  body: string;
}

let pki: TestPki;
let server: https.Server;
let endpoint: string;
let respond: Responder;
const seen: Seen[] = [];

beforeAll(async () => {
  pki = createTestPki();
  server = https.createServer(
    { key: pki.server.keyPem, cert: pki.server.certPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: true },
    (request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const peer = (request.socket as TLSSocket).getPeerCertificate();
        seen.push({ contentType: request.headers['content-type'], clientSubject: String(peer.subject?.CN ?? ''), body });
        respond(request, body, response);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}/soap/services/`;
});
afterEach(() => {
  seen.length = 0;
  server.closeAllConnections();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function settings(changes: Partial<SoapHiSettings> = {}): SoapHiSettings {
  return {
    endpoint,
    certificate: loadNashCertificate(pki.nash.pfx, pki.nash.passphrase),
    trustedCaPem: pki.ca.certPem,
    product: { vendorQualifier: 'http://ns.medicareaustralia.gov.au/mcaVendorId/1.0', vendorId: 'ERX00001', productName: 'erx', productVersion: '0.1.0' },
    timeoutMs: 5_000,
    signatureAlgorithm: 'rsa-sha1',
    digestAlgorithm: 'sha1',
    ...changes,
  };
}

/** Answers `xml` as relating to the request it answers (RelatesTo is outside the signed parts). */
const answerWith = (status: number, xml: string): Responder => (_request, body, response) => {
  const messageId = /<wsa:MessageID>([^<]+)<\/wsa:MessageID>/.exec(body)?.[1] ?? '';
  response.writeHead(status, { 'content-type': 'application/soap+xml; charset=utf-8' }).end(xml.replace(TEST_MESSAGE_ID, messageId));
};

const IHI = '8003601240022579';
const CONTEXT = { hpio: '8003624166667003', userId: 'user-42' };
const SEARCH: IhiSearchRequest = {
  path: 'medicare',
  medicare_card_number: '2950141861',
  medicare_irn: '1',
  demographics: { family_name: 'Wood', given_name: 'Jessica', date_of_birth: '2002-12-12', sex: 'F' },
};
const PRIVATE_VALUES = [IHI, '2950141861', 'Wood', 'Jessica', '2002-12-12', 'user-42', '8003624166667003'];

describe('SOAP adapter over mutual TLS', () => {
  it('posts a signed SOAP 1.2 request with its action and the NASH certificate, and maps the signed answer', async () => {
    respond = answerWith(200, answerXml(ihiResultXml({ ihi: IHI, status: 'Active', recordStatus: 'Verified' }), pki.hiSigner));
    const result = await createSoapHiService(settings()).searchIhi(SEARCH, CONTEXT);
    expect(result).toStrictEqual({ kind: 'found', ihi_number: IHI, ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED' });
    expect(seen[0]!.contentType).toBe(
      'application/soap+xml; charset=utf-8; action="http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0/ConsumerSearchIHIPortType/searchIHIRequest"',
    );
    expect(seen[0]!.clientSubject).toBe('general.8003629900000000.id.electronichealth.net.au');
    expect(seen[0]!.body).toMatch(/<ds:Signature[\s>][\s\S]*<cc:medicareCardNumber>2950141861<\/cc:medicareCardNumber>/);
  });

  it('verifies a provider over the same connection settings', async () => {
    respond = answerWith(200, answerXml(providerResultXml({ hpii: '8003619166667284', status: 'A' }), pki.hiSigner));
    const provider = { hpii_number: '8003619166667284', family_name: 'Hpids', given_name: 'Frank', date_of_birth: '1970-01-01', sex: 'M' as const };
    await expect(createSoapHiService(settings()).verifyProvider(provider, CONTEXT)).resolves.toStrictEqual({ kind: 'verified' });
    expect(seen[0]!.contentType).toContain('ProviderSearchForProviderIndividualPortType/searchForProviderIndividualRequest');
  });

  it('signs with the configured algorithms', async () => {
    respond = answerWith(200, answerXml(ihiResultXml({}), pki.hiSigner));
    await createSoapHiService(settings({ signatureAlgorithm: 'rsa-sha256', digestAlgorithm: 'sha256' })).searchIhi(SEARCH, CONTEXT);
    expect(seen[0]!.body).toContain('Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"');
    expect(seen[0]!.body).toContain('Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"');
  });

  it('throws the typed rejection for an unsigned Error fault', async () => {
    respond = answerWith(500, answerXml(faultXml('Sender', serviceMessagesXml([['01966', 'Error']]))));
    const call = createSoapHiService(settings()).searchIhi(SEARCH, CONTEXT);
    await expect(call).rejects.toBeInstanceOf(HiServiceRejectedError);
    await expect(call).rejects.toMatchObject({ severity: 'Error', code: '01966' });
  });

  it('gives up at its timeout when the service does not answer', async () => {
    respond = () => undefined;
    const call = createSoapHiService(settings({ timeoutMs: 200 })).searchIhi(SEARCH, CONTEXT);
    await expect(call).rejects.toThrow(HiServiceUnreachableError);
    await expect(call).rejects.toThrow(/timed out/);
  });

  it("gives up when the caller's signal aborts, before its own timeout", async () => {
    const controller = new AbortController();
    respond = () => controller.abort();
    const call = createSoapHiService(settings({ timeoutMs: 60_000 })).searchIhi(SEARCH, { ...CONTEXT, signal: controller.signal });
    await expect(call).rejects.toThrow(/aborted/);
    await expect(createSoapHiService(settings()).searchIhi(SEARCH, { ...CONTEXT, signal: controller.signal })).rejects.toThrow(/aborted/);
    expect(seen).toHaveLength(1);
  });

  it('gives up when the answer stops halfway', async () => {
    respond = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/soap+xml', 'content-length': '5000' });
      response.write(answerXml(ihiResultXml({ ihi: IHI }), pki.hiSigner).slice(0, 300));
      setImmediate(() => response.socket?.destroy());
    };
    await expect(createSoapHiService(settings()).searchIhi(SEARCH, CONTEXT)).rejects.toThrow(HiServiceUnreachableError);
  });

  it('is unreachable when nothing listens at the endpoint', async () => {
    const closed = https.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(createSoapHiService(settings({ endpoint: `https://127.0.0.1:${port}/` })).searchIhi(SEARCH, CONTEXT)).rejects.toThrow(/no answer/);
  });

  it('does not trust an endpoint whose certificate is not from the trusted CA (nor from the system store)', async () => {
    respond = answerWith(200, answerXml(ihiResultXml({}), pki.hiSigner));
    const other = createTestCa('another CA');
    await expect(createSoapHiService(settings({ trustedCaPem: other.certPem })).searchIhi(SEARCH, CONTEXT)).rejects.toThrow(HiServiceUnreachableError);
    await expect(createSoapHiService(settings({ trustedCaPem: undefined })).searchIhi(SEARCH, CONTEXT)).rejects.toThrow(HiServiceUnreachableError);
    expect(seen).toHaveLength(0);
  });

  it('is refused by a service that does not accept its client certificate', async () => {
    respond = answerWith(200, answerXml(ihiResultXml({}), pki.hiSigner));
    const stranger = issueNashCertificate(createTestCa('another CA'));
    const certificate = loadNashCertificate(stranger.pfx, stranger.passphrase);
    await expect(createSoapHiService(settings({ certificate })).searchIhi(SEARCH, CONTEXT)).rejects.toThrow(HiServiceUnreachableError);
    expect(seen).toHaveLength(0);
  });

  it('refuses an endpoint that is not https', () => {
    expect(() => createSoapHiService(settings({ endpoint: 'http://127.0.0.1:1/' }))).toThrow(/https/);
  });

  it('logs nothing and puts no identifier, demographic or user in its errors', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method).mockImplementation(() => undefined));
    const writes = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')];
    const adapter: HiServicePort = createSoapHiService(settings({ timeoutMs: 300 }));
    const errors: Error[] = [];
    const answers = [
      answerWith(500, answerXml(faultXml('Sender', serviceMessagesXml([['01966', 'Error']])))),
      answerWith(200, answerXml(ihiResultXml({ ihi: IHI }))),
      answerWith(200, answerXml(ihiResultXml({ ihi: '8003601240022578' }), pki.hiSigner)),
      () => undefined,
    ];
    for (const answer of answers) {
      respond = answer;
      await adapter.searchIhi(SEARCH, CONTEXT).catch((error: Error) => errors.push(error));
    }
    try {
      expect(errors).toHaveLength(answers.length);
      for (const error of errors) {
        for (const value of PRIVATE_VALUES) expect(`${error.message} ${String(error.cause ?? '')}`).not.toContain(value);
      }
      for (const spy of [...spies, ...writes]) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of [...spies, ...writes]) spy.mockRestore();
    }
  });
});
