// Hand-built, signed HI requests for testing the fake itself, and a mutual-TLS client to send
// them. Tests take a correct request and break one thing at a time.
import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { SignedXml } from 'xml-crypto';
import { IDENTIFIER_QUALIFIERS, NS, OPERATIONS, SIGNATURE_ALGORITHMS, type HiOperation } from './hi-wire.ts';
import { escapeXml } from './xml-dom.ts';

export interface HandBuiltRequest {
  url: string;
  operation: HiOperation;
  /** The payload's child elements, in the order to send. */
  payloadXml: string;
  signer: { keyPem: string; certPem: string };
  hpio?: string | null;
  userId?: string;
  action?: string;
  to?: string;
  messageId?: string;
  faultTo?: boolean;
  created?: Date;
  /** Header elements to leave out (by local name). */
  omit?: string[];
  /** Which of Body, user and timestamp the signature covers (all three by default). */
  signed?: ('Body' | 'user' | 'timestamp')[];
}

const PAYLOAD_NAMESPACES = Object.entries({
  cc: NS.consumerElements,
  ce: NS.commonElements,
  n: NS.individualName,
  ca: NS.consumerAddress,
  ac: NS.addressCore,
  ec: NS.consumerElectronicCommunication,
  ecc: NS.electronicCommunicationCore,
  pc: NS.providerElements,
  pd: NS.providerPersonalDetails,
})
  .map(([prefix, uri]) => `xmlns:${prefix}="${uri}"`)
  .join(' ');

const qualifiedId = (name: string, qualifier: string, id: string, xmlId = '') =>
  `<ce:${name}${xmlId}><q:qualifier>${escapeXml(qualifier)}</q:qualifier><q:id>${escapeXml(id)}</q:id></ce:${name}>`;

function buildHeaders(options: HandBuiltRequest, wire: (typeof OPERATIONS)[HiOperation]): string {
  const omit = new Set(options.omit ?? []);
  const created = options.created ?? new Date();
  const expires = new Date(created.getTime() + 5 * 60_000);
  const headers: [string, string][] = [
    ['Action', `<wsa:Action>${escapeXml(options.action ?? wire.requestAction)}</wsa:Action>`],
    ['MessageID', `<wsa:MessageID>${options.messageId ?? `urn:uuid:${randomUUID()}`}</wsa:MessageID>`],
    ['To', `<wsa:To>${escapeXml(options.to ?? options.url)}</wsa:To>`],
    ['FaultTo', options.faultTo ? '<wsa:FaultTo><wsa:Address>http://www.w3.org/2005/08/addressing/anonymous</wsa:Address></wsa:FaultTo>' : ''],
    [
      'product',
      `<ce:product><ce:vendor><q:qualifier>http://ns.medicareaustralia.gov.au/mcaVendorId/1.0</q:qualifier><q:id>ERX00001</q:id></ce:vendor>` +
        `<ce:productName>erx</ce:productName><ce:productVersion>0.1.0</ce:productVersion><ce:platform>Node.js</ce:platform></ce:product>`,
    ],
    ['signature', '<ce:signature/>'],
    ['timestamp', `<ce:timestamp xml:id="timestamp-${randomUUID()}"><ce:created>${created.toISOString()}</ce:created><ce:expires>${expires.toISOString()}</ce:expires></ce:timestamp>`],
    ['user', qualifiedId('user', 'http://erx.example/id/erx/userid/1.0', options.userId ?? 'user-1', ` xml:id="user-${randomUUID()}"`)],
    ['hpio', options.hpio === null ? '' : qualifiedId('hpio', IDENTIFIER_QUALIFIERS.hpio, options.hpio ?? '8003621566684455')],
  ];
  return headers.filter(([name]) => !omit.has(name)).map(([, xml]) => xml).join('');
}

export function buildHandBuiltRequest(options: HandBuiltRequest): string {
  const wire = OPERATIONS[options.operation];
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<soap:Envelope xmlns:soap="${NS.soap}" xmlns:wsa="${NS.wsa}" xmlns:ce="${NS.commonElements}" xmlns:q="${NS.qualifiedId}">` +
    `<soap:Header>${buildHeaders(options, wire)}</soap:Header>` +
    `<soap:Body xml:id="body-${randomUUID()}"><svc:${wire.requestElement} xmlns:svc="${wire.serviceNs}" ${PAYLOAD_NAMESPACES}>${options.payloadXml}</svc:${wire.requestElement}></soap:Body></soap:Envelope>`;
  if ((options.omit ?? []).includes('signature')) return xml;
  const signer = new SignedXml({
    privateKey: options.signer.keyPem,
    publicCert: options.signer.certPem,
    signatureAlgorithm: SIGNATURE_ALGORITHMS.rsaSha1,
    canonicalizationAlgorithm: SIGNATURE_ALGORITHMS.excC14n,
  });
  for (const target of options.signed ?? ['Body', 'user', 'timestamp']) {
    signer.addReference({
      xpath: `//*[local-name(.)='${target}' and (local-name(.)='Body' or namespace-uri(.)='${NS.commonElements}')]`,
      transforms: [SIGNATURE_ALGORITHMS.excC14n],
      digestAlgorithm: SIGNATURE_ALGORITHMS.sha1,
    });
  }
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `//*[local-name(.)='signature' and namespace-uri(.)='${NS.commonElements}']`, action: 'append' },
  });
  return signer.getSignedXml();
}

/** A searchIHI payload in the service's order; pass only the key elements the test wants. */
export function ihiSearchPayload(fields: {
  ihiNumber?: string;
  medicare?: { card: string; irn: string };
  dva?: string;
  mobile?: string;
  demographics: { family: string; given: string; dob: string; sex: string };
}): string {
  const parts: string[] = [];
  if (fields.ihiNumber) parts.push(`<cc:ihiNumber>${IDENTIFIER_QUALIFIERS.ihi}${fields.ihiNumber}</cc:ihiNumber>`);
  if (fields.medicare) parts.push(`<cc:medicareCardNumber>${fields.medicare.card}</cc:medicareCardNumber><cc:medicareIRN>${fields.medicare.irn}</cc:medicareIRN>`);
  if (fields.dva) parts.push(`<cc:dvaFileNumber>${escapeXml(fields.dva)}</cc:dvaFileNumber>`);
  if (fields.mobile) parts.push(`<ec:electronicCommunication><ecc:medium>M</ecc:medium><ecc:usage>P</ecc:usage><ec:details>${fields.mobile}</ec:details></ec:electronicCommunication>`);
  const { demographics: d } = fields;
  parts.push(`<ce:dateOfBirth>${d.dob}</ce:dateOfBirth><ce:sex>${d.sex}</ce:sex><n:familyName>${escapeXml(d.family)}</n:familyName><n:givenName>${escapeXml(d.given)}</n:givenName>`);
  return parts.join('');
}

export function providerSearchPayload(fields: { hpii: string; family: string; given: string; dob: string; sex: string }): string {
  return (
    `<pc:hpiiNumber>${IDENTIFIER_QUALIFIERS.hpii}${fields.hpii}</pc:hpiiNumber><n:familyName>${escapeXml(fields.family)}</n:familyName>` +
    `<n:givenName>${escapeXml(fields.given)}</n:givenName><pd:dateOfBirth>${fields.dob}</pd:dateOfBirth><ce:sex>${fields.sex}</ce:sex>`
  );
}

export interface RawAnswer {
  status: number;
  contentType: string | undefined;
  body: string;
}

/** Posts a request over mutual TLS; `client` null sends no client certificate. */
export function postToFake(options: {
  url: string;
  xml: string;
  caPem: string;
  client: { keyPem: string; certPem: string } | null;
  contentType?: string;
}): Promise<RawAnswer> {
  const action = /<wsa:Action>([^<]*)<\/wsa:Action>/.exec(options.xml)?.[1] ?? '';
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      options.url,
      {
        method: 'POST',
        ca: options.caPem,
        ...(options.client ? { key: options.client.keyPem, cert: options.client.certPem } : {}),
        headers: { 'content-type': options.contentType ?? `application/soap+xml; charset=utf-8; action="${action}"` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.xml);
  });
}
