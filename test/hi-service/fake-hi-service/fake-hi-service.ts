// A protocol-level fake of the national HI Service for tests: HTTPS on 127.0.0.1 that demands a
// client certificate issued by the test CA, checks each request as the service's gateway would
// (check-envelope, check-signature, read-request-body and, with ERX_HI_XSD_DIR, the schemas),
// answers from HI fixtures in the service's shape and signs its answers. A refused request gets
// a SOAP fault naming the violation. Tests can inject the next answer (fault-injection.ts) and
// read what the fake received; it never logs.
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HiFixtures } from '../../../src/hi-service/hi-fixture-file.ts';
import type { TestPki } from '../test-pki.ts';
import { checkEnvelope, type EnvelopeSeen } from './check-envelope.ts';
import { checkRequestSignature } from './check-signature.ts';
import { decideAnswer, faultAnswer, type Answer, type ParsedRequest } from './decide-answer.ts';
import { answerInjected, type InjectedFault } from './fault-injection.ts';
import { NS, type HiOperation } from './hi-wire.ts';
import { readProviderSearch, readSearchIhi } from './read-request-body.ts';
import { findXsdDir, loadXsdValidator, type XsdValidator } from './validate-xsd.ts';
import { writeEnvelope, signEnvelope, type AnswerSigner } from './write-answer.ts';
import { parseXml, RequestViolation, requireChild, violation } from './xml-dom.ts';

export interface FakeHiServiceOptions {
  fixtures: HiFixtures;
  pki: TestPki;
  /** How the fake signs its answers (default RSA-SHA1 with SHA-1 digests, as ADHA's profile). */
  answerSignature?: 'rsa-sha1' | 'rsa-sha256';
  /** The service's clock, for the freshness of the timestamp header. */
  now?: () => Date;
  maxClockSkewMs?: number;
  /** The endpoint's path (default /soap/services/). */
  path?: string;
  /** Schemas to validate every request against; ERX_HI_XSD_DIR by default (skipped when unset). */
  xsdDir?: string | null;
}

/** What the fake saw of one request (no demographics: the user id, HPI-O and headers only). */
export interface ReceivedRequest {
  operation?: HiOperation;
  messageId?: string;
  headerNames: string[];
  hpio?: string;
  userId?: string;
  userQualifier?: string;
  product?: EnvelopeSeen['product'];
  signatureMethod?: string;
  digestMethods?: string[];
  clientCertificateSubject?: string;
  /** Why the request was refused, when it was. */
  violation?: string;
  /** What was answered: `result`, `fault`, `http 503`, or an injected kind. */
  answered?: string;
}

export interface FakeHiService {
  /** The endpoint to give the adapter (ERX_HI_ENDPOINT). */
  url: string;
  /** The next request (after passing the checks) gets this answer instead of the fixtures'. */
  injectNext(fault: InjectedFault): void;
  received: ReceivedRequest[];
  /** Every violation so far, in order; a correct client leaves it empty. */
  violations(): string[];
  /** Why requests are not validated against the schemas, when they are not. */
  xsdSkipReason?: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;
const SCHEMA_CHECKED_HEADERS = ['product', 'user', 'hpio', 'timestamp'];

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy(new Error('request too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function readPayload(envelope: EnvelopeSeen): ParsedRequest {
  if (envelope.wire.operation === 'searchIHI') return { operation: 'searchIHI', request: readSearchIhi(envelope.payload) };
  return { operation: 'searchForProviderIndividual', request: readProviderSearch(envelope.payload) };
}

function sendAnswer(response: ServerResponse, xml: string, status: number): void {
  response.writeHead(status, { 'content-type': 'application/soap+xml; charset=utf-8' });
  response.end(xml);
}

export async function startFakeHiService(options: FakeHiServiceOptions): Promise<FakeHiService> {
  const { pki, fixtures } = options;
  const now = options.now ?? (() => new Date());
  const path = options.path ?? '/soap/services/';
  const trustedCa = new X509Certificate(pki.ca.certPem);
  const signer: AnswerSigner = { ...pki.hiSigner, algorithm: options.answerSignature ?? 'rsa-sha1' };
  const xsdSetting = options.xsdDir === null ? { skipReason: 'XSD validation turned off for this fake' } : options.xsdDir ? { dir: options.xsdDir } : findXsdDir();
  const xsd: XsdValidator | undefined = 'dir' in xsdSetting ? loadXsdValidator(xsdSetting.dir) : undefined;
  const injections: InjectedFault[] = [];
  const received: ReceivedRequest[] = [];
  const held = new Set<ServerResponse>();
  let url = '';

  async function checkRequest(xml: string, request: IncomingMessage, seen: ReceivedRequest) {
    if (request.method !== 'POST') violation(`method ${request.method} (the service takes POST only)`);
    if (request.url !== path) violation(`path ${request.url} is not the endpoint ${path}`);
    const document = parseXml(xml, 'the request');
    const envelope = checkEnvelope(document, { contentType: request.headers['content-type'], url, now: now(), maxClockSkewMs: options.maxClockSkewMs ?? 300_000 });
    Object.assign(seen, {
      operation: envelope.wire.operation,
      messageId: envelope.messageId,
      headerNames: envelope.headerNames,
      hpio: envelope.hpio.id,
      userId: envelope.user.id,
      userQualifier: envelope.user.qualifier,
      product: envelope.product,
    });
    const tlsClient = (request.socket as import('node:tls').TLSSocket).getPeerX509Certificate();
    seen.clientCertificateSubject = tlsClient?.subject;
    const signature = checkRequestSignature({ xml, document, envelope, tlsClient, trustedCa, now: now() });
    Object.assign(seen, { signatureMethod: signature.signatureMethod, digestMethods: signature.digestMethods });
    const parsed = readPayload(envelope);
    if (xsd !== undefined) {
      const headers = SCHEMA_CHECKED_HEADERS.map((name) => requireChild(envelope.header, NS.commonElements, name));
      const schemaError = await xsd.validate([envelope.payload, ...headers]);
      if (schemaError !== undefined) violation(schemaError);
    }
    return { envelope, parsed };
  }

  function respond(response: ServerResponse, answer: Answer, seen: ReceivedRequest, wireActions: { response: string; fault: string }, relatesTo?: string, sign = true): void {
    if (answer.kind === 'http') {
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const envelope = writeEnvelope({ action: answer.kind === 'fault' ? wireActions.fault : wireActions.response, relatesTo, created: now(), body: answer.body });
    sendAnswer(response, sign ? signEnvelope(envelope, signer) : envelope, answer.kind === 'fault' ? 500 : 200);
    seen.answered ??= answer.kind;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const seen: ReceivedRequest = { headerNames: [] };
    received.push(seen);
    const xml = await readBody(request);
    let checked: Awaited<ReturnType<typeof checkRequest>>;
    try {
      checked = await checkRequest(xml, request, seen);
    } catch (error) {
      if (!(error instanceof RequestViolation)) throw error;
      seen.violation = error.message;
      const actions = { response: 'http://www.w3.org/2005/08/addressing/fault', fault: 'http://www.w3.org/2005/08/addressing/fault' };
      respond(response, faultAnswer('Error', 'FAKE_HI_PROTOCOL', `Refused by the fake HI Service: ${error.message}`), seen, actions, seen.messageId);
      return;
    }
    const { envelope, parsed } = checked;
    const actions = { response: envelope.wire.responseAction, fault: envelope.wire.faultAction };
    const injected = injections.shift();
    if (injected !== undefined) {
      seen.answered = injected.kind;
      await answerInjected(injected, { response, held, parsed, signer, otherSigner: { ...pki.otherHiSigner, algorithm: signer.algorithm }, actions, relatesTo: envelope.messageId, now: now(), fixtures, context: { hpio: envelope.hpio.id, userId: envelope.user.id } });
      return;
    }
    const answer = await decideAnswer(fixtures, parsed, { hpio: envelope.hpio.id, userId: envelope.user.id });
    seen.answered = answer.kind === 'http' ? `http ${answer.status}` : answer.kind;
    respond(response, answer, seen, actions, envelope.messageId);
  }

  const server: Server = createServer(
    { key: pki.server.keyPem, cert: pki.server.certPem, ca: [pki.ca.certPem], requestCert: true, rejectUnauthorized: true },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`fake HI Service failure: ${(error as Error).message}`);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    url,
    received,
    injectNext: (fault) => injections.push(fault),
    violations: () => received.flatMap((seen) => (seen.violation ? [seen.violation] : [])),
    xsdSkipReason: 'skipReason' in xsdSetting ? xsdSetting.skipReason : undefined,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

