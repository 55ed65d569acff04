// The HI Service's wire names: namespaces, WS-Addressing actions and identifier qualifiers, as
// ADHA's public client libraries (their generated message classes) name them.

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  wsa: 'http://www.w3.org/2005/08/addressing',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xml: 'http://www.w3.org/XML/1998/namespace',
  ce: 'http://ns.electronichealth.net.au/hi/xsd/common/CommonCoreElements/3.0',
  qid: 'http://ns.electronichealth.net.au/hi/xsd/common/QualifiedIdentifier/3.0',
  name: 'http://ns.electronichealth.net.au/hi/xsd/common/IndividualNameCore/3.0',
  addr: 'http://ns.electronichealth.net.au/hi/xsd/common/AddressCore/3.0',
  ecc: 'http://ns.electronichealth.net.au/hi/xsd/common/ElectronicCommunicationCore/3.0',
  cc: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/ConsumerCoreElements/3.0',
  ca: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/Address/3.0',
  cec: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/ElectronicCommunication/3.0',
  ihiSvc: 'http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0',
  ihiMsg: 'http://ns.electronichealth.net.au/hi/xsd/consumermessages/SearchIHI/3.0',
  hpiiSvc: 'http://ns.electronichealth.net.au/hi/svc/ProviderSearchForProviderIndividual/5.0.0',
  hpiiMsg: 'http://ns.electronichealth.net.au/hi/xsd/providermessages/SearchIndividual/5.0.0',
  pce: 'http://ns.electronichealth.net.au/hi/xsd/providercore/ProviderCoreElements/5.0.0',
  pt: 'http://ns.electronichealth.net.au/hi/xsd/providercore/ProviderType/5.0.0',
  pin: 'http://ns.electronichealth.net.au/hi/xsd/providercore/IndividualName/5.0.0',
  ppd: 'http://ns.electronichealth.net.au/hi/xsd/providercore/PersonalDetails/5.0.0',
} as const;

export type NsPrefix = keyof typeof NS;

/** Identifiers travel as qualified URIs (IHI, HPI-I) or as a qualifier + id pair (HPI-O header). */
export const QUALIFIERS = {
  ihi: 'http://ns.electronichealth.net.au/id/hi/ihi/1.0/',
  hpii: 'http://ns.electronichealth.net.au/id/hi/hpii/1.0/',
  hpio: 'http://ns.electronichealth.net.au/id/hi/hpio/1.0',
} as const;

export const WSA_ANONYMOUS = 'http://www.w3.org/2005/08/addressing/anonymous';

export type HiOperationName = 'searchIHI' | 'searchForProviderIndividual';

export interface HiOperation {
  name: HiOperationName;
  /** wsa:Action and the action parameter of the content type. */
  action: string;
  /** Namespace of the body's payload and of the response element. */
  serviceNs: string;
  /** The result element inside `<name>Response`, and its namespace. */
  resultName: string;
  resultNs: string;
}

function describeOperation(name: HiOperationName, serviceNs: string, portType: string, resultNs: string): HiOperation {
  return { name, action: `${serviceNs}/${portType}/${name}Request`, serviceNs, resultName: `${name}Result`, resultNs };
}

export const SEARCH_IHI = describeOperation('searchIHI', NS.ihiSvc, 'ConsumerSearchIHIPortType', NS.ihiMsg);
export const SEARCH_PROVIDER_INDIVIDUAL = describeOperation(
  'searchForProviderIndividual',
  NS.hpiiSvc,
  'ProviderSearchForProviderIndividualPortType',
  NS.hpiiMsg,
);

/** Every prefix declared once on the envelope, so each element below names its namespace by prefix. */
export function declareNamespaces(): string {
  return (Object.keys(NS) as NsPrefix[])
    .filter((prefix) => prefix !== 'xml')
    .map((prefix) => `xmlns:${prefix}="${NS[prefix]}"`)
    .join(' ');
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** `<prefix:name>` around already-written children. */
export function element(prefix: NsPrefix, name: string, children: string, attributes = ''): string {
  return `<${prefix}:${name}${attributes}>${children}</${prefix}:${name}>`;
}

/** `<prefix:name>` around escaped text; nothing when the text is absent. */
export function textElement(prefix: NsPrefix, name: string, text: string | undefined): string {
  return text === undefined ? '' : element(prefix, name, escapeXml(text));
}
