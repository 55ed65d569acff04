// Reads an HTTP answer into what the mapping table decides on: an unusable answer (with the
// reason), a SOAP fault, or a verified result. A result must be signed, its signature must verify
// and cover the Body, its signer must chain to the trusted CA (and be the pinned key, when one is
// configured), and it must relate to our request with a fresh signed timestamp; a fault may come
// unsigned (a gateway in front of the service writes its own), but a signature it carries must hold.
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import { findHeaderSignature, HiSignatureError, verifyAnswerSignature, type AnswerTrust } from './hi-xml-signature.ts';
import { NS, type HiOperation } from './hi-soap-wire.ts';
import type { SoapAnswer } from './hi-soap-transport.ts';

export type HiSeverity = 'Fatal' | 'Error' | 'Warning' | 'Informational';
export interface ServiceMessage {
  code: string;
  severity: HiSeverity;
}

export type ReadAnswer =
  | { kind: 'unusable'; reason: string }
  | { kind: 'fault'; soapCode: string; messages: ServiceMessage[] }
  | { kind: 'result'; result: Element; messages: ServiceMessage[] };

const SEVERITIES: readonly HiSeverity[] = ['Fatal', 'Error', 'Warning', 'Informational'];

export function childElements(parent: Element | Document, ns?: string, localName?: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== 1) continue;
    const child = node as Element;
    if ((ns === undefined || child.namespaceURI === ns) && (localName === undefined || child.localName === localName)) found.push(child);
  }
  return found;
}

export function childText(parent: Element, ns: string, localName: string): string | undefined {
  const child = childElements(parent, ns, localName)[0];
  const text = child?.textContent?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** A service code is kept only as a short token: nothing else of the answer reaches an error. */
function cleanCode(code: string | undefined): string {
  return code !== undefined && /^[A-Za-z0-9:._-]{1,40}$/.test(code) ? code : 'unreadable-code';
}

function readServiceMessages(container: Element | undefined): ServiceMessage[] {
  const messages = container ? childElements(container, NS.ce, 'serviceMessages')[0] : undefined;
  if (!messages) return [];
  return childElements(messages, NS.ce, 'serviceMessage').map((message) => {
    const severity = childText(message, NS.ce, 'severity');
    return {
      code: cleanCode(childText(message, NS.ce, 'code')),
      // An unreadable severity is taken at its worst, so it can never pass as "no match".
      severity: SEVERITIES.find((known) => known === severity) ?? 'Fatal',
    };
  });
}

function parseXml(text: string): Document | undefined {
  try {
    const parser = new DOMParser({
      onError: (level) => {
        if (level !== 'warning') throw new Error('malformed XML');
      },
    });
    return parser.parseFromString(text, 'text/xml');
  } catch {
    return undefined;
  }
}

function readFault(fault: Element): ReadAnswer {
  const code = childElements(fault, NS.soap, 'Code')[0];
  const value = code ? childText(code, NS.soap, 'Value') : undefined;
  const detail = childElements(fault, NS.soap, 'Detail')[0];
  return { kind: 'fault', soapCode: cleanCode(value?.replace(/^[^:]*:/, '')), messages: readServiceMessages(detail) };
}

function readResult(body: Element, operation: HiOperation): ReadAnswer {
  const response = childElements(body, operation.serviceNs, `${operation.name}Response`)[0];
  const result = response ? childElements(response, operation.resultNs, operation.resultName)[0] : undefined;
  if (!result) return { kind: 'unusable', reason: 'the answer holds no result' };
  return { kind: 'result', result, messages: readServiceMessages(result) };
}

/** Verifies the signature a message carries (`required` for results); returns why it fails, or the xml:ids it covers. */
function checkSignature(text: string, header: Element | undefined, body: Element, trust: AnswerTrust, required: boolean): { refused: string } | { signedIds: Set<string> } {
  const signature = findHeaderSignature(header);
  if (!signature) return required ? { refused: 'the result is not signed' } : { signedIds: new Set() };
  try {
    const signedIds = verifyAnswerSignature(text, signature, trust);
    const bodyId = body.getAttributeNS(NS.xml, 'id');
    return bodyId && signedIds.has(bodyId) ? { signedIds } : { refused: 'the signature does not cover the Body' };
  } catch (error) {
    if (error instanceof HiSignatureError) return { refused: error.message };
    return { refused: 'the signature could not be checked' };
  }
}

/**
 * How old a signed answer may be. The service answers within ERX_HI_TIMEOUT_MS (10 s by
 * default), so an older answer is a replay of one recorded earlier; the margin absorbs the clock
 * difference between erx and the service (the fake refuses requests skewed by as much).
 */
export const ANSWER_MAX_AGE_MS = 5 * 60_000;
/** How far ahead of erx's clock an answer's timestamp may be: the same clock difference. */
export const ANSWER_MAX_SKEW_MS = 5 * 60_000;

/**
 * A result must relate to our request (WS-Addressing RelatesTo = our MessageID) and carry a
 * signed, fresh `timestamp` header: together they stop a recorded answer, validly signed, from
 * being replayed as the answer to another request.
 */
function checkResultFreshness(header: Element | undefined, signedIds: Set<string>, messageId: string | undefined, now: Date): string | undefined {
  if (messageId !== undefined && (header ? childText(header, NS.wsa, 'RelatesTo') : undefined) === undefined) return 'the answer does not name the request it relates to';
  const timestamp = header ? childElements(header, NS.ce, 'timestamp')[0] : undefined;
  const timestampId = timestamp?.getAttributeNS(NS.xml, 'id');
  if (!timestamp || !timestampId || !signedIds.has(timestampId)) return 'the answer has no signed timestamp';
  const created = Date.parse(childText(timestamp, NS.ce, 'created') ?? '');
  if (Number.isNaN(created)) return 'the answer timestamp is unreadable';
  if (created < now.getTime() - ANSWER_MAX_AGE_MS) return 'the answer timestamp is stale';
  if (created > now.getTime() + ANSWER_MAX_SKEW_MS) return 'the answer timestamp is in the future';
  return undefined;
}

/** An answer that names the request it relates to must name ours (WS-Addressing RelatesTo). */
function relatesToAnother(header: Element | undefined, messageId: string | undefined): boolean {
  const relatesTo = header ? childText(header, NS.wsa, 'RelatesTo') : undefined;
  return messageId !== undefined && relatesTo !== undefined && relatesTo !== messageId;
}

export function readSoapAnswer(answer: SoapAnswer, operation: HiOperation, trust: AnswerTrust, messageId?: string): ReadAnswer {
  const document = /xml/i.test(answer.contentType) || answer.body.trimStart().startsWith('<') ? parseXml(answer.body) : undefined;
  const envelope = document?.documentElement;
  if (!envelope || envelope.namespaceURI !== NS.soap || envelope.localName !== 'Envelope') {
    return { kind: 'unusable', reason: `HTTP ${answer.status} without a SOAP 1.2 envelope` };
  }
  const header = childElements(envelope, NS.soap, 'Header')[0];
  const body = childElements(envelope, NS.soap, 'Body')[0];
  if (!body) return { kind: 'unusable', reason: 'the envelope has no Body' };
  if (relatesToAnother(header, messageId)) return { kind: 'unusable', reason: 'the answer relates to another request' };
  const fault = childElements(body, NS.soap, 'Fault')[0];
  const signature = checkSignature(answer.body, header, body, trust, fault === undefined);
  if ('refused' in signature) return { kind: 'unusable', reason: signature.refused };
  // A fault only ever ends a call without an answer, so a replayed one gains nothing; a result is taken as the truth.
  if (fault) return readFault(fault);
  const stale = checkResultFreshness(header, signature.signedIds, messageId, trust.now);
  if (stale) return { kind: 'unusable', reason: stale };
  if (answer.status !== 200) return { kind: 'unusable', reason: `HTTP ${answer.status} without a fault` };
  return readResult(body, operation);
}
