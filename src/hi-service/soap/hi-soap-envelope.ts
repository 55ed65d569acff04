// The SOAP 1.2 envelope of a request: WS-Addressing (Action, MessageID, ReplyTo, To; never
// FaultTo, which the HI Service cannot handle) and the HI headers in the order of ADHA's message
// contracts (product, signature, timestamp, user, hpio). The Body, user and timestamp carry the
// xml:id the signature refers to them by; the signature header starts empty.
import { randomUUID } from 'node:crypto';
import { DEFAULT_HI_USER_QUALIFIER, type SoapHiProduct } from './hi-soap-settings.ts';
import { declareNamespaces, element, QUALIFIERS, textElement, WSA_ANONYMOUS, type HiOperation } from './hi-soap-wire.ts';

export interface EnvelopeInput {
  operation: HiOperation;
  /** The body's payload, already written. */
  payload: string;
  endpoint: string;
  product: SoapHiProduct;
  userQualifier?: string;
  userId: string;
  hpio: string;
  now: Date;
}

export interface UnsignedEnvelope {
  xml: string;
  messageId: string;
  /** The xml:id values of the elements the signature covers. */
  ids: { body: string; user: string; timestamp: string };
}

/** The platform as the clients fill it in: a free text naming the runtime. */
export const HI_PLATFORM = `Node.js ${process.versions.node} (${process.platform})`;

function writeQualifiedId(qualifier: string, id: string): string {
  return textElement('qid', 'qualifier', qualifier) + textElement('qid', 'id', id);
}

function writeProduct(product: SoapHiProduct): string {
  return element(
    'ce',
    'product',
    element('ce', 'vendor', writeQualifiedId(product.vendorQualifier, product.vendorId)) +
      textElement('ce', 'productName', product.productName) +
      textElement('ce', 'productVersion', product.productVersion) +
      textElement('ce', 'platform', HI_PLATFORM),
  );
}

const xmlId = (id: string) => ` xml:id="${id}"`;

function writeAddressing(input: EnvelopeInput, messageId: string): string {
  return (
    textElement('wsa', 'Action', input.operation.action) +
    textElement('wsa', 'MessageID', messageId) +
    element('wsa', 'ReplyTo', textElement('wsa', 'Address', WSA_ANONYMOUS)) +
    textElement('wsa', 'To', input.endpoint)
  );
}

export function writeEnvelope(input: EnvelopeInput): UnsignedEnvelope {
  const messageId = `urn:uuid:${randomUUID()}`;
  const ids = { body: `_${randomUUID()}`, user: `_${randomUUID()}`, timestamp: `_${randomUUID()}` };
  const headers =
    writeAddressing(input, messageId) +
    writeProduct(input.product) +
    element('ce', 'signature', '') +
    element('ce', 'timestamp', textElement('ce', 'created', input.now.toISOString()), xmlId(ids.timestamp)) +
    element('ce', 'user', writeQualifiedId(input.userQualifier ?? DEFAULT_HI_USER_QUALIFIER, input.userId), xmlId(ids.user)) +
    element('ce', 'hpio', writeQualifiedId(QUALIFIERS.hpio, input.hpio));
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<soap:Envelope ${declareNamespaces()}>` +
    element('soap', 'Header', headers) +
    element('soap', 'Body', input.payload, xmlId(ids.body)) +
    `</soap:Envelope>`;
  return { xml, messageId, ids };
}

/** The content type of a SOAP 1.2 request, naming the action as the HI Service reads it. */
export function soapContentType(action: string): string {
  return `application/soap+xml; charset=utf-8; action="${action}"`;
}
