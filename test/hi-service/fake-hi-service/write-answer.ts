// The fake's answers in the service's shape: a SOAP 1.2 envelope with WS-Addressing headers
// relating it to the request, the service's product and timestamp headers, and an enveloped
// signature (the fake's signing certificate) over the Body, the product and the timestamp.
import { randomUUID } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import type { IhiFound } from '../../../src/hi-service/index.ts';
import type { IhiSearchRequest, ProviderVerificationRequest } from '../../../src/hi-service/hi-service-port.ts';
import { IDENTIFIER_QUALIFIERS, NS, SIGNATURE_ALGORITHMS, type OperationWire } from './hi-wire.ts';
import { escapeXml } from './xml-dom.ts';

export type Severity = 'Fatal' | 'Error' | 'Warning' | 'Informational';

export interface ServiceMessage {
  code: string;
  severity: Severity;
  reason: string;
}

export interface AnswerSigner {
  keyPem: string;
  certPem: string;
  algorithm: 'rsa-sha1' | 'rsa-sha256';
}

/** How the service answers a search that found nothing (an informational message). */
export const NO_MATCH_MESSAGES = {
  searchIHI: { code: '01439', severity: 'Informational', reason: 'No IHI was found for the search criteria.' },
  searchForProviderIndividual: { code: 'WSE0035', severity: 'Informational', reason: 'No records have been found.' },
} as const satisfies Record<string, ServiceMessage>;

const el = (prefix: string, name: string, text: string) => `<${prefix}:${name}>${escapeXml(text)}</${prefix}:${name}>`;

/** `ACTIVE` as the service writes it: `Active`. */
function mixedCase(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1).toLowerCase();
}

export function writeServiceMessages(messages: ServiceMessage[]): string {
  const ranks: Severity[] = ['Fatal', 'Error', 'Warning', 'Informational'];
  const highest = ranks.find((severity) => messages.some((message) => message.severity === severity)) ?? 'Informational';
  const items = messages
    .map((message) => `<ce:serviceMessage>${el('ce', 'code', message.code)}${el('ce', 'severity', message.severity)}${el('ce', 'reason', message.reason)}</ce:serviceMessage>`)
    .join('');
  return `<ce:serviceMessages xmlns:ce="${NS.commonElements}">${el('ce', 'highestSeverity', highest)}${items}</ce:serviceMessages>`;
}

const RESULT_NAMESPACES = [
  `xmlns:cc="${NS.consumerElements}"`,
  `xmlns:ce="${NS.commonElements}"`,
  `xmlns:n="${NS.individualName}"`,
].join(' ');

/** The searchIHI result for a found record, echoing the request's Medicare or DVA key. */
export function writeIhiFound(found: IhiFound, request: IhiSearchRequest): string {
  const parts = [el('cc', 'ihiNumber', `${IDENTIFIER_QUALIFIERS.ihi}${found.ihi_number}`)];
  if (request.path === 'medicare') {
    parts.push(el('cc', 'medicareCardNumber', request.medicare_card_number ?? ''));
    if (request.medicare_irn !== undefined) parts.push(el('cc', 'medicareIRN', request.medicare_irn));
  }
  if (request.path === 'dva') parts.push(el('cc', 'dvaFileNumber', request.dva_file_number ?? ''));
  if (found.ihi_record_status !== undefined) parts.push(el('cc', 'ihiRecordStatus', mixedCase(found.ihi_record_status)));
  if (found.ihi_status !== undefined) parts.push(el('cc', 'ihiStatus', mixedCase(found.ihi_status)));
  const { demographics } = request;
  if (demographics.given_name !== '') parts.push(el('n', 'givenName', demographics.given_name.toUpperCase()));
  parts.push(el('n', 'familyName', demographics.family_name.toUpperCase()));
  parts.push(el('ce', 'dateOfBirth', demographics.date_of_birth), el('ce', 'sex', demographics.sex));
  return `<sr:searchIHIResult xmlns:sr="${NS.searchIhiMessages}" ${RESULT_NAMESPACES}>${parts.join('')}</sr:searchIHIResult>`;
}

export function writeIhiMessagesOnly(messages: ServiceMessage[]): string {
  return `<sr:searchIHIResult xmlns:sr="${NS.searchIhiMessages}">${writeServiceMessages(messages)}</sr:searchIHIResult>`;
}

/** The provider search result for a found HPI-I; `status` absent when the service gave none. */
export function writeProviderFound(request: ProviderVerificationRequest, status: string | undefined): string {
  const parts = [`<pc:hpiiNumber xmlns:pc="${NS.providerElements}">${IDENTIFIER_QUALIFIERS.hpii}${request.hpii_number}</pc:hpiiNumber>`];
  if (status !== undefined) parts.push(`<pc:status xmlns:pc="${NS.providerElements}">${escapeXml(status)}</pc:status>`);
  parts.push(el('n', 'familyName', request.family_name.toUpperCase()));
  for (const given of request.given_name.split(' ').filter(Boolean)) parts.push(el('n', 'givenName', given));
  parts.push(`<pd:dateOfBirth xmlns:pd="${NS.providerPersonalDetails}">${request.date_of_birth}</pd:dateOfBirth>`);
  parts.push(el('ce', 'sex', request.sex));
  return `<pr:searchForProviderIndividualResult xmlns:pr="${NS.providerMessages}" xmlns:n="${NS.individualName}" xmlns:ce="${NS.commonElements}">${parts.join('')}</pr:searchForProviderIndividualResult>`;
}

export function writeProviderMessagesOnly(messages: ServiceMessage[]): string {
  return `<pr:searchForProviderIndividualResult xmlns:pr="${NS.providerMessages}">${writeServiceMessages(messages)}</pr:searchForProviderIndividualResult>`;
}

export function writeResponseBody(wire: OperationWire, result: string): string {
  return `<svc:${wire.responseElement} xmlns:svc="${wire.serviceNs}">${result}</svc:${wire.responseElement}>`;
}

/** A SOAP 1.2 fault; `messages` go in its Detail as the service's serviceMessages. */
export function writeFaultBody(options: { code: 'Sender' | 'Receiver'; reason: string; messages?: ServiceMessage[] }): string {
  const detail = options.messages ? `<soap:Detail>${writeServiceMessages(options.messages)}</soap:Detail>` : '';
  return (
    `<soap:Fault><soap:Code><soap:Value>soap:${options.code}</soap:Value></soap:Code>` +
    `<soap:Reason><soap:Text xml:lang="en">${escapeXml(options.reason)}</soap:Text></soap:Reason>${detail}</soap:Fault>`
  );
}

const SERVICE_PRODUCT =
  `<ce:vendor><q:qualifier>http://ns.medicareaustralia.gov.au/mcaVendorId/1.0</q:qualifier><q:id>FAKEHI</q:id></ce:vendor>` +
  `<ce:productName>erx fake HI Service</ce:productName><ce:productVersion>1.0</ce:productVersion><ce:platform>Node.js</ce:platform>`;

export interface EnvelopeParts {
  action: string;
  relatesTo?: string;
  /** When the answer was made: the signed `timestamp` header (not in a bare answer). */
  created: Date;
  body: string;
  /** Without HI headers (product, signature): an answer from a gateway in front of the service. */
  bare?: boolean;
}

export function writeEnvelope(parts: EnvelopeParts): string {
  const addressing =
    `<wsa:Action>${escapeXml(parts.action)}</wsa:Action><wsa:MessageID>urn:uuid:${randomUUID()}</wsa:MessageID>` +
    (parts.relatesTo ? `<wsa:RelatesTo>${escapeXml(parts.relatesTo)}</wsa:RelatesTo>` : '') +
    `<wsa:To>http://www.w3.org/2005/08/addressing/anonymous</wsa:To>`;
  const hiHeaders = parts.bare
    ? ''
    : `<ce:product xml:id="product-${randomUUID()}">${SERVICE_PRODUCT}</ce:product><ce:signature/>` +
      `<ce:timestamp xml:id="timestamp-${randomUUID()}"><ce:created>${parts.created.toISOString()}</ce:created></ce:timestamp>`;
  const bodyId = parts.bare ? '' : ` xml:id="body-${randomUUID()}"`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<soap:Envelope xmlns:soap="${NS.soap}" xmlns:wsa="${NS.wsa}" xmlns:ce="${NS.commonElements}" xmlns:q="${NS.qualifiedId}">` +
    `<soap:Header>${addressing}${hiHeaders}</soap:Header><soap:Body${bodyId}>${parts.body}</soap:Body></soap:Envelope>`
  );
}

/** Signs an envelope from writeEnvelope: Body, product and timestamp by xml:id, exclusive C14N, certificate in KeyInfo. */
export function signEnvelope(xml: string, signer: AnswerSigner): string {
  const sha256 = signer.algorithm === 'rsa-sha256';
  const signed = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: sha256 ? SIGNATURE_ALGORITHMS.rsaSha256 : SIGNATURE_ALGORITHMS.rsaSha1,
    canonicalizationAlgorithm: SIGNATURE_ALGORITHMS.excC14n,
  });
  for (const target of ['Body', 'product', 'timestamp']) {
    signed.addReference({
      xpath: `/*/*/*[local-name(.)='${target}'] | /*/*[local-name(.)='${target}']`,
      transforms: [SIGNATURE_ALGORITHMS.excC14n],
      digestAlgorithm: sha256 ? SIGNATURE_ALGORITHMS.sha256 : SIGNATURE_ALGORITHMS.sha1,
    });
  }
  signed.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `//*[local-name(.)='signature' and namespace-uri(.)='${NS.commonElements}']`, action: 'append' },
  });
  return signed.getSignedXml();
}
