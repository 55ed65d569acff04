// The gateway's checks of a request's transport and envelope: SOAP 1.2 content type and action,
// WS-Addressing (Action of a known operation, MessageID as urn:uuid, To naming the endpoint,
// never FaultTo), the HI headers (product, user, a fresh timestamp, a valid qualified HPI-O,
// signature) and a body holding the operation's payload.
import type { Document, Element } from '@xmldom/xmldom';
import { isValidHpio } from '../../../src/identifiers/index.ts';
import {
  checkSequence,
  PRODUCT_SEQUENCE,
  QUALIFIED_ID_SEQUENCE,
  TIMESTAMP_SEQUENCE,
} from './element-order.ts';
import { findOperationByAction, IDENTIFIER_QUALIFIERS, NS, type OperationWire } from './hi-wire.ts';
import { childElements, describeElement, isElement, readText, requireChildText, violation } from './xml-dom.ts';

export interface QualifiedIdSeen {
  qualifier: string;
  id: string;
}

export interface EnvelopeSeen {
  wire: OperationWire;
  messageId: string;
  to: string;
  /** Header elements in order, as `wsa:Action`, `hi:product`, …. */
  headerNames: string[];
  product: { vendor: QualifiedIdSeen; productName: string; productVersion: string; platform: string };
  user: QualifiedIdSeen;
  hpio: QualifiedIdSeen;
  timestamp: { created: string; expires?: string };
  header: Element;
  body: Element;
  payload: Element;
}

export interface EnvelopeCheckOptions {
  contentType: string | undefined;
  /** The URL the request was posted to; wsa:To must name it. */
  url: string;
  now: Date;
  maxClockSkewMs: number;
}

const ADDRESSING_HEADERS = ['Action', 'MessageID', 'To', 'ReplyTo', 'From'];
const HI_HEADERS = ['product', 'signature', 'timestamp', 'user', 'hpio'];

/** The SOAP action named by the content type, if any; a violation when it is not SOAP 1.2. */
export function readContentTypeAction(contentType: string | undefined): string | undefined {
  const [mediaType, ...parameters] = (contentType ?? '').split(';').map((part) => part.trim());
  if (mediaType?.toLowerCase() === 'text/xml') violation('content type text/xml is SOAP 1.1; the HI Service takes SOAP 1.2 (application/soap+xml)');
  if (mediaType?.toLowerCase() !== 'application/soap+xml') violation(`content type ${mediaType || '(none)'} is not application/soap+xml`);
  const action = parameters.find((parameter) => /^action=/i.test(parameter));
  return action?.slice('action='.length).replace(/^"|"$/g, '');
}

function labelHeader(element: Element): string {
  if (element.namespaceURI === NS.wsa) return `wsa:${element.localName}`;
  if (element.namespaceURI === NS.commonElements) return `hi:${element.localName}`;
  return describeElement(element);
}

function indexHeaders(header: Element): Map<string, Element> {
  const byLabel = new Map<string, Element>();
  for (const element of childElements(header)) {
    const label = labelHeader(element);
    if (label === 'wsa:FaultTo') violation('wsa:FaultTo is present; the HI Service cannot handle FaultTo');
    const known =
      (element.namespaceURI === NS.wsa && ADDRESSING_HEADERS.includes(element.localName ?? '')) ||
      (element.namespaceURI === NS.commonElements && HI_HEADERS.includes(element.localName ?? ''));
    if (!known) violation(`unexpected header ${describeElement(element)}`);
    if (byLabel.has(label)) violation(`header ${label} appears more than once`);
    byLabel.set(label, element);
  }
  return byLabel;
}

function requireHeader(headers: Map<string, Element>, label: string): Element {
  return headers.get(label) ?? violation(`header ${label} is missing`);
}

function readQualifiedId(element: Element, what: string): QualifiedIdSeen {
  const fields = checkSequence(element, QUALIFIED_ID_SEQUENCE, what);
  const qualifier = readText(fields.get('qualifier')![0]!);
  const id = readText(fields.get('id')![0]!);
  if (!/^(https?:\/\/|urn:)\S+$/.test(qualifier)) violation(`${what}: qualifier must be a URI`);
  if (id === '') violation(`${what}: id is empty`);
  return { qualifier, id };
}

function readProduct(element: Element): EnvelopeSeen['product'] {
  const fields = checkSequence(element, PRODUCT_SEQUENCE, 'header product');
  const text = (name: string) => requireChildText(element, NS.commonElements, name);
  return {
    vendor: readQualifiedId(fields.get('vendor')![0]!, 'header product/vendor'),
    productName: text('productName'),
    productVersion: text('productVersion'),
    platform: text('platform'),
  };
}

function readHpio(element: Element): QualifiedIdSeen {
  const hpio = readQualifiedId(element, 'header hpio');
  if (hpio.qualifier !== IDENTIFIER_QUALIFIERS.hpio) violation(`header hpio: qualifier must be ${IDENTIFIER_QUALIFIERS.hpio}`);
  if (!isValidHpio(hpio.id)) violation('header hpio: id is not a valid HPI-O (16 digits, prefix 800362, Luhn check digit)');
  return hpio;
}

function parseDateTime(text: string, what: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) violation(`${what} is not an xs:dateTime with a zone`);
  return Date.parse(text);
}

function readTimestamp(element: Element, options: EnvelopeCheckOptions): EnvelopeSeen['timestamp'] {
  const fields = checkSequence(element, TIMESTAMP_SEQUENCE, 'header timestamp');
  const created = readText(fields.get('created')![0]!);
  const createdAt = parseDateTime(created, 'header timestamp/created');
  const now = options.now.getTime();
  if (Math.abs(createdAt - now) > options.maxClockSkewMs) violation('header timestamp/created is not fresh (too far from the service clock)');
  const expiresElement = fields.get('expires')?.[0];
  if (expiresElement === undefined) return { created };
  const expires = readText(expiresElement);
  const expiresAt = parseDateTime(expires, 'header timestamp/expires');
  if (expiresAt <= createdAt || expiresAt <= now - options.maxClockSkewMs) violation('header timestamp/expires has passed');
  return { created, expires };
}

function readAddressing(headers: Map<string, Element>, options: EnvelopeCheckOptions) {
  const action = readText(requireHeader(headers, 'wsa:Action'));
  const wire = findOperationByAction(action) ?? violation(`wsa:Action ${action} names no operation of this service`);
  const contentTypeAction = readContentTypeAction(options.contentType);
  if (contentTypeAction !== undefined && contentTypeAction !== action) violation('the content type action differs from wsa:Action');
  const messageId = readText(requireHeader(headers, 'wsa:MessageID'));
  if (!/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(messageId)) violation('wsa:MessageID is not a urn:uuid');
  const to = readText(requireHeader(headers, 'wsa:To'));
  if (to !== options.url) violation(`wsa:To ${to} does not name the endpoint ${options.url}`);
  return { wire, messageId, to };
}

function readPayload(body: Element, wire: OperationWire): Element {
  const children = childElements(body);
  const payload = children[0];
  if (children.length !== 1 || !isElement(payload, wire.serviceNs, wire.requestElement)) {
    violation(`Body must hold exactly one {${wire.serviceNs}}${wire.requestElement} (the wsa:Action's operation)`);
  }
  return payload;
}

/** Checks everything but the signature and the payload's content. */
export function checkEnvelope(document: Document, options: EnvelopeCheckOptions): EnvelopeSeen {
  const root = document.documentElement!;
  if (root.localName === 'Envelope' && root.namespaceURI === 'http://schemas.xmlsoap.org/soap/envelope/') violation('a SOAP 1.1 envelope; the HI Service takes SOAP 1.2');
  if (!isElement(root, NS.soap, 'Envelope')) violation('the document is not a SOAP 1.2 Envelope');
  const [header, body, ...rest] = childElements(root);
  if (!isElement(header, NS.soap, 'Header')) violation('the Envelope must begin with a Header');
  if (!isElement(body, NS.soap, 'Body') || rest.length > 0) violation('the Envelope must hold a Header and then a Body only');
  const headers = indexHeaders(header);
  const addressing = readAddressing(headers, options);
  requireHeader(headers, 'hi:signature');
  return {
    ...addressing,
    headerNames: [...headers.keys()],
    product: readProduct(requireHeader(headers, 'hi:product')),
    user: readQualifiedId(requireHeader(headers, 'hi:user'), 'header user'),
    hpio: readHpio(requireHeader(headers, 'hi:hpio')),
    timestamp: readTimestamp(requireHeader(headers, 'hi:timestamp'), options),
    header,
    body,
    payload: readPayload(body, addressing.wire),
  };
}
