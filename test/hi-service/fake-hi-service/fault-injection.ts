// The answers a test can inject for the next request, each one a way the real service or the
// network in front of it can answer: service faults (Error, Fatal, informational no-match),
// no-match as a result, a gateway's unsigned fault, HTTP 503, no answer at all, a truncated
// answer, answers whose signature must not be trusted (tampered, another CA, another key of the
// trusted CA), and replays of a recorded answer (no RelatesTo, a stale timestamp).
import type { ServerResponse } from 'node:http';
import type { HiCallContext } from '../../../src/hi-service/index.ts';
import type { HiFixtures } from '../../../src/hi-service/hi-fixture-file.ts';
import { createTestCa, issueNashCertificate } from '../test-pki.ts';
import { decideAnswer, faultAnswer, noMatchResult, type Answer, type ParsedRequest } from './decide-answer.ts';
import { NO_MATCH_MESSAGES, signEnvelope, writeEnvelope, writeFaultBody, type AnswerSigner } from './write-answer.ts';

export type InjectedFault =
  /** A signed SOAP fault whose serviceMessages carry an Error (default code 01966). */
  | { kind: 'error-fault'; code?: string }
  /** A signed SOAP fault whose serviceMessages carry a Fatal. */
  | { kind: 'fatal-fault'; code?: string }
  /** The informational no-match message, as a SOAP fault. */
  | { kind: 'no-match-fault' }
  /** The informational no-match message, as a result (whatever the fixtures hold). */
  | { kind: 'no-match-result' }
  /** HTTP 500 with an unsigned SOAP fault from a gateway, with or without a service message. */
  | { kind: 'gateway-fault'; code?: string; withoutServiceMessage?: boolean }
  | { kind: 'http-503' }
  /** Never answers; the connection stays open until the fake closes. */
  | { kind: 'timeout' }
  /** The fixtures' answer, signed, cut off halfway. */
  | { kind: 'truncated-xml' }
  /** The fixtures' answer, signed, then altered (another valid IHI, or the provider status). */
  | { kind: 'bad-signature' }
  /** The fixtures' answer, validly signed by a certificate from another CA. */
  | { kind: 'untrusted-signer' }
  /** The fixtures' answer without any signature. */
  | { kind: 'unsigned-result' }
  /** The fixtures' answer signed by another key of the trusted CA, under the service's own subject name. */
  | { kind: 'wrong-signer' }
  /** The fixtures' answer, signed, without the RelatesTo naming the request (as a recorded answer replayed). */
  | { kind: 'no-relates-to' }
  /** The fixtures' answer, signed, with a timestamp `ageMs` old (default 10 minutes: a recorded answer replayed). */
  | { kind: 'stale-timestamp'; ageMs?: number };

export interface InjectionContext {
  response: ServerResponse;
  held: Set<ServerResponse>;
  parsed: ParsedRequest;
  signer: AnswerSigner;
  /** Another key of the same CA and subject (wrong-signer). */
  otherSigner: AnswerSigner;
  actions: { response: string; fault: string };
  relatesTo: string;
  /** The fake's clock: its answers' timestamp. */
  now: Date;
  fixtures: HiFixtures;
  context: HiCallContext;
}

const OTHER_VALID_IHIS = ['8003608666670997', '8003601240022579'];
let untrustedSigner: { keyPem: string; certPem: string } | undefined;

function signWithUntrustedCertificate(xml: string, algorithm: AnswerSigner['algorithm']): string {
  untrustedSigner ??= issueNashCertificate(createTestCa('another CA'), { commonName: 'not the HI Service' });
  return signEnvelope(xml, { ...untrustedSigner, algorithm });
}

/** Alters a signed answer so that its digest no longer matches, keeping it plausible. */
function tamper(signedXml: string): string {
  const ihi = /(ihi\/1\.0\/)(\d{16})/.exec(signedXml);
  if (ihi) {
    const replacement = OTHER_VALID_IHIS.find((candidate) => candidate !== ihi[2])!;
    return signedXml.replace(ihi[0], `${ihi[1]}${replacement}`);
  }
  const status = /(:status[^>]*>)A</.exec(signedXml);
  if (status) return signedXml.replace(status[0], `${status[1]}R<`);
  return signedXml.replace(/(<[\w:]*reason>)([^<]*)</, '$1$2 (altered)<');
}

function envelopeOf(answer: Answer, injection: InjectionContext, changes: { relatesTo?: string; created?: Date } = {}): string {
  if (answer.kind === 'http') throw new Error('an HTTP answer has no envelope');
  const action = answer.kind === 'fault' ? injection.actions.fault : injection.actions.response;
  return writeEnvelope({ action, relatesTo: injection.relatesTo, created: injection.now, body: answer.body, ...changes });
}

/** Ten minutes: older than any answer the adapter may take (hi-soap-read.ts allows five). */
const STALE_AGE_MS = 10 * 60_000;

function send(injection: InjectionContext, status: number, body: string, contentType = 'application/soap+xml; charset=utf-8'): void {
  injection.response.writeHead(status, { 'content-type': contentType }).end(body);
}

function writeGatewayFault(fault: Extract<InjectedFault, { kind: 'gateway-fault' }>, injection: InjectionContext): string {
  const messages = fault.withoutServiceMessage ? undefined : [{ code: fault.code ?? 'ESB0001', severity: 'Error' as const, reason: 'The gateway could not process the request.' }];
  const body = writeFaultBody({ code: 'Receiver', reason: 'Gateway error', messages });
  return writeEnvelope({ action: 'http://www.w3.org/2005/08/addressing/fault', relatesTo: injection.relatesTo, created: injection.now, body, bare: true });
}

async function fixtureAnswer(injection: InjectionContext): Promise<Answer> {
  const answer = await decideAnswer(injection.fixtures, injection.parsed, injection.context);
  if (answer.kind === 'http') throw new Error('this injection needs a fixture that answers (not an unreachable one)');
  return answer;
}

export async function answerInjected(fault: InjectedFault, injection: InjectionContext): Promise<void> {
  const { signer } = injection;
  const signedOf = (answer: Answer) => signEnvelope(envelopeOf(answer, injection), signer);
  switch (fault.kind) {
    case 'error-fault':
      return send(injection, 500, signedOf(faultAnswer('Error', fault.code ?? '01966', 'The search does not meet the minimum criteria.')));
    case 'fatal-fault':
      return send(injection, 500, signedOf(faultAnswer('Fatal', fault.code ?? 'WSE9999', 'An internal error occurred.')));
    case 'no-match-fault': {
      const message = NO_MATCH_MESSAGES[injection.parsed.operation];
      return send(injection, 500, signedOf(faultAnswer('Informational', message.code, message.reason)));
    }
    case 'no-match-result':
      return send(injection, 200, signedOf(noMatchResult(injection.parsed.operation)));
    case 'gateway-fault':
      return send(injection, 500, writeGatewayFault(fault, injection));
    case 'http-503':
      return send(injection, 503, 'Service Unavailable', 'text/html');
    case 'timeout':
      injection.held.add(injection.response);
      return;
    case 'truncated-xml': {
      const signed = signedOf(await fixtureAnswer(injection));
      return send(injection, 200, signed.slice(0, Math.floor(signed.length / 2)));
    }
    case 'bad-signature':
      return send(injection, 200, tamper(signedOf(await fixtureAnswer(injection))));
    case 'untrusted-signer':
      return send(injection, 200, signWithUntrustedCertificate(envelopeOf(await fixtureAnswer(injection), injection), signer.algorithm));
    case 'unsigned-result':
      return send(injection, 200, envelopeOf(await fixtureAnswer(injection), injection));
    case 'wrong-signer':
      return send(injection, 200, signEnvelope(envelopeOf(await fixtureAnswer(injection), injection), injection.otherSigner));
    case 'no-relates-to':
      return send(injection, 200, signEnvelope(envelopeOf(await fixtureAnswer(injection), injection, { relatesTo: '' }), signer));
    case 'stale-timestamp': {
      const created = new Date(injection.now.getTime() - (fault.ageMs ?? STALE_AGE_MS));
      return send(injection, 200, signEnvelope(envelopeOf(await fixtureAnswer(injection), injection, { created }), signer));
    }
  }
}
