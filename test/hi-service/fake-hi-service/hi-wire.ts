// The HI Service's wire names, as the fake checks them: namespaces, WS-Addressing actions and
// the qualifiers of identifiers. Written from ADHA's public client libraries (the generated
// message classes), independently of erx's SOAP adapter, so the fake can disagree with it.

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  wsa: 'http://www.w3.org/2005/08/addressing',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xml: 'http://www.w3.org/XML/1998/namespace',
  commonElements: 'http://ns.electronichealth.net.au/hi/xsd/common/CommonCoreElements/3.0',
  qualifiedId: 'http://ns.electronichealth.net.au/hi/xsd/common/QualifiedIdentifier/3.0',
  individualName: 'http://ns.electronichealth.net.au/hi/xsd/common/IndividualNameCore/3.0',
  addressCore: 'http://ns.electronichealth.net.au/hi/xsd/common/AddressCore/3.0',
  addressCore5: 'http://ns.electronichealth.net.au/hi/xsd/common/AddressCore/5.0.0',
  electronicCommunicationCore: 'http://ns.electronichealth.net.au/hi/xsd/common/ElectronicCommunicationCore/3.0',
  consumerElements: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/ConsumerCoreElements/3.0',
  consumerAddress: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/Address/3.0',
  consumerElectronicCommunication: 'http://ns.electronichealth.net.au/hi/xsd/consumercore/ElectronicCommunication/3.0',
  searchIhiService: 'http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0',
  searchIhiMessages: 'http://ns.electronichealth.net.au/hi/xsd/consumermessages/SearchIHI/3.0',
  providerService: 'http://ns.electronichealth.net.au/hi/svc/ProviderSearchForProviderIndividual/5.0.0',
  providerMessages: 'http://ns.electronichealth.net.au/hi/xsd/providermessages/SearchIndividual/5.0.0',
  providerElements: 'http://ns.electronichealth.net.au/hi/xsd/providercore/ProviderCoreElements/5.0.0',
  providerType: 'http://ns.electronichealth.net.au/hi/xsd/providercore/ProviderType/5.0.0',
  providerIndividualName: 'http://ns.electronichealth.net.au/hi/xsd/providercore/IndividualName/5.0.0',
  providerPersonalDetails: 'http://ns.electronichealth.net.au/hi/xsd/providercore/PersonalDetails/5.0.0',
} as const;

export const IDENTIFIER_QUALIFIERS = {
  ihi: 'http://ns.electronichealth.net.au/id/hi/ihi/1.0/',
  hpii: 'http://ns.electronichealth.net.au/id/hi/hpii/1.0/',
  hpio: 'http://ns.electronichealth.net.au/id/hi/hpio/1.0',
} as const;

export type HiOperation = 'searchIHI' | 'searchForProviderIndividual';

export interface OperationWire {
  operation: HiOperation;
  requestAction: string;
  responseAction: string;
  faultAction: string;
  serviceNs: string;
  /** The body's payload element (in serviceNs). */
  requestElement: string;
  responseElement: string;
  /** The result element inside the response element, and its namespace. */
  resultElement: string;
  resultNs: string;
}

function describeOperation(serviceNs: string, portType: string, operation: HiOperation, resultNs: string): OperationWire {
  const base = `${serviceNs}/${portType}`;
  return {
    operation,
    requestAction: `${base}/${operation}Request`,
    responseAction: `${base}/${operation}Response`,
    faultAction: `${base}/${operation}/Fault/standardError`,
    serviceNs,
    requestElement: operation,
    responseElement: `${operation}Response`,
    resultElement: `${operation}Result`,
    resultNs,
  };
}

export const OPERATIONS: Record<HiOperation, OperationWire> = {
  searchIHI: describeOperation(NS.searchIhiService, 'ConsumerSearchIHIPortType', 'searchIHI', NS.searchIhiMessages),
  searchForProviderIndividual: describeOperation(
    NS.providerService,
    'ProviderSearchForProviderIndividualPortType',
    'searchForProviderIndividual',
    NS.providerMessages,
  ),
};

export function findOperationByAction(action: string): OperationWire | undefined {
  return Object.values(OPERATIONS).find((wire) => wire.requestAction === action);
}

export const SIGNATURE_ALGORITHMS = {
  excC14n: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  envelopedSignature: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  rsaSha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
} as const;

/** Provider status codes as the service sends them (TECH.SIS.HI.31 example: `A`). */
export const PROVIDER_STATUS = { active: 'A', deactivated: 'D', retired: 'R' } as const;
