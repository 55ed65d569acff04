// Hand-written HI Service answers for the adapter's tests, in the shape ADHA's clients parse:
// a SOAP 1.2 envelope whose Body holds the operation's response (or a fault), signed (when a
// signer is given) in the `signature` header over the Body and the timestamp by their xml:ids,
// relating to a request by WS-Addressing RelatesTo.
import { SignedXml } from 'xml-crypto';

export const ANSWER_NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  ce: 'http://ns.electronichealth.net.au/hi/xsd/common/CommonCoreElements/3.0',
  cc: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/ConsumerCoreElements/3.0',
  ihiSvc: 'http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0',
  ihiMsg: 'http://ns.electronichealth.net.au/hi/xsd/consumermessages/SearchIHI/3.0',
  hpiiSvc: 'http://ns.electronichealth.net.au/hi/svc/ProviderSearchForProviderIndividual/5.0.0',
  hpiiMsg: 'http://ns.electronichealth.net.au/hi/xsd/providermessages/SearchIndividual/5.0.0',
  pce: 'http://ns.electronichealth.net.au/hi/xsd/providercore/ProviderCoreElements/5.0.0',
};

export type Severity = 'Fatal' | 'Error' | 'Warning' | 'Informational';

export function serviceMessagesXml(messages: [code: string, severity: Severity][]): string {
  const items = messages.map(([code, severity]) => `<ce:serviceMessage><ce:code>${code}</ce:code><ce:severity>${severity}</ce:severity><ce:reason>text</ce:reason></ce:serviceMessage>`);
  const highest = (['Fatal', 'Error', 'Warning', 'Informational'] as const).find((s) => messages.some(([, m]) => m === s)) ?? 'Informational';
  return `<ce:serviceMessages><ce:highestSeverity>${highest}</ce:highestSeverity>${items.join('')}</ce:serviceMessages>`;
}

export function ihiResultXml(fields: { ihi?: string; recordStatus?: string; status?: string; messages?: string }): string {
  const parts = [
    fields.ihi ? `<cc:ihiNumber>http://ns.electronichealth.net.au/id/hi/ihi/1.0/${fields.ihi}</cc:ihiNumber>` : '',
    fields.recordStatus ? `<cc:ihiRecordStatus>${fields.recordStatus}</cc:ihiRecordStatus>` : '',
    fields.status ? `<cc:ihiStatus>${fields.status}</cc:ihiStatus>` : '',
    fields.ihi ? `<n:familyName xmlns:n="http://ns.electronichealth.net.au/hi/xsd/common/IndividualNameCore/3.0">WOOD</n:familyName>` : '',
    fields.messages ?? '',
  ];
  return `<svc:searchIHIResponse xmlns:svc="${ANSWER_NS.ihiSvc}"><r:searchIHIResult xmlns:r="${ANSWER_NS.ihiMsg}">${parts.join('')}</r:searchIHIResult></svc:searchIHIResponse>`;
}

export function providerResultXml(fields: { hpii?: string; status?: string; messages?: string }): string {
  const parts = [
    fields.hpii ? `<pce:hpiiNumber>http://ns.electronichealth.net.au/id/hi/hpii/1.0/${fields.hpii}</pce:hpiiNumber>` : '',
    fields.status ? `<pce:status>${fields.status}</pce:status>` : '',
    fields.messages ?? '',
  ];
  return `<svc:searchForProviderIndividualResponse xmlns:svc="${ANSWER_NS.hpiiSvc}"><r:searchForProviderIndividualResult xmlns:r="${ANSWER_NS.hpiiMsg}">${parts.join('')}</r:searchForProviderIndividualResult></svc:searchForProviderIndividualResponse>`;
}

export function faultXml(code: 'Sender' | 'Receiver', messages?: string): string {
  const detail = messages ? `<soap:Detail>${messages}</soap:Detail>` : '';
  return `<soap:Fault><soap:Code><soap:Value>soap:${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">fault</soap:Text></soap:Reason>${detail}</soap:Fault>`;
}

export interface AnswerSigner {
  keyPem: string;
  certPem: string;
  algorithm?: 'rsa-sha1' | 'rsa-sha256';
}

/** The MessageID of the request an answer relates to by default (a test with a real request puts its own in its place). */
export const TEST_MESSAGE_ID = 'urn:uuid:11111111-1111-4111-8111-111111111111';

export interface AnswerHeaders {
  /** wsa:RelatesTo (default TEST_MESSAGE_ID); null: none. */
  relatesTo?: string | null;
  /** The signed timestamp header's `created` (default now); null: no timestamp header. */
  created?: Date | null;
  /** Whether the timestamp is among the signed parts (default true). */
  signTimestamp?: boolean;
}

/** An answer envelope around `body`, relating to TEST_MESSAGE_ID with a timestamp; signed over the Body and the timestamp when `signer` is given. */
export function answerXml(body: string, signer?: AnswerSigner, headers: AnswerHeaders = {}): string {
  const relatesTo = headers.relatesTo === undefined ? TEST_MESSAGE_ID : headers.relatesTo;
  const created = headers.created === undefined ? new Date() : headers.created;
  const addressing = relatesTo === null ? '' : `<wsa:RelatesTo xmlns:wsa="http://www.w3.org/2005/08/addressing">${relatesTo}</wsa:RelatesTo>`;
  const timestamp = created === null ? '' : `<ce:timestamp xml:id="answer-timestamp"><ce:created>${created.toISOString()}</ce:created></ce:timestamp>`;
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${ANSWER_NS.soap}" xmlns:ce="${ANSWER_NS.ce}" xmlns:cc="${ANSWER_NS.cc}" xmlns:pce="${ANSWER_NS.pce}">` +
    `<soap:Header>${addressing}<ce:signature/>${timestamp}</soap:Header><soap:Body xml:id="answer-body">${body}</soap:Body></soap:Envelope>`;
  if (!signer) return xml;
  const sha256 = signer.algorithm === 'rsa-sha256';
  const signed = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: sha256 ? 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256' : 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const targets = created !== null && headers.signTimestamp !== false ? ['Body', 'timestamp'] : ['Body'];
  for (const target of targets) {
    signed.addReference({
      xpath: `//*[local-name(.)='${target}']`,
      transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: sha256 ? 'http://www.w3.org/2001/04/xmlenc#sha256' : 'http://www.w3.org/2000/09/xmldsig#sha1',
    });
  }
  signed.computeSignature(xml, { prefix: 'ds', location: { reference: "//*[local-name(.)='signature']", action: 'append' } });
  return signed.getSignedXml();
}
