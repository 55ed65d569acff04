// The element sequences of the request bodies and their nested types, as ADHA's generated
// message classes order them (ConsumerSearchIHI 3.0, ProviderSearchForProviderIndividual
// 5.0.0). The fake refuses an unknown element, one out of order, a repeat or a missing one.
import type { Element } from '@xmldom/xmldom';
import { NS } from './hi-wire.ts';
import { childElements, describeElement, violation } from './xml-dom.ts';

export interface SequenceItem {
  name: string;
  ns: string;
  required?: boolean;
  repeats?: boolean;
}

const item = (ns: string, name: string, flags: Partial<SequenceItem> = {}): SequenceItem => ({ ns, name, ...flags });
const required = { required: true } as const;

export const SEARCH_IHI_SEQUENCE: SequenceItem[] = [
  item(NS.consumerElements, 'ihiNumber'),
  item(NS.consumerElements, 'medicareCardNumber'),
  item(NS.consumerElements, 'medicareIRN'),
  item(NS.consumerElements, 'dvaFileNumber'),
  item(NS.consumerElectronicCommunication, 'electronicCommunication'),
  item(NS.commonElements, 'dateOfBirth', required),
  item(NS.commonElements, 'sex', required),
  item(NS.individualName, 'familyName', required),
  item(NS.individualName, 'givenName'),
  item(NS.consumerAddress, 'australianPostalAddress'),
  item(NS.consumerAddress, 'australianStreetAddress'),
  item(NS.consumerAddress, 'australianUnstructuredStreetAddress'),
  item(NS.consumerAddress, 'internationalAddress'),
  item(NS.consumerElements, 'history'),
];

export const ELECTRONIC_COMMUNICATION_SEQUENCE: SequenceItem[] = [
  item(NS.electronicCommunicationCore, 'medium', required),
  item(NS.electronicCommunicationCore, 'usage', required),
  item(NS.consumerElectronicCommunication, 'details', required),
  item(NS.commonElements, 'preferred'),
];

export const STREET_ADDRESS_SEQUENCE: SequenceItem[] = [
  item(NS.addressCore, 'state', required),
  item(NS.addressCore, 'postcode', required),
  item(NS.consumerAddress, 'suburb', required),
  item(NS.addressCore, 'addressSiteName'),
  item(NS.addressCore, 'unitGroup'),
  item(NS.addressCore, 'levelGroup'),
  item(NS.addressCore, 'lotNumber'),
  item(NS.addressCore, 'streetNumber'),
  item(NS.addressCore, 'streetName', required),
  item(NS.addressCore, 'streetType'),
  item(NS.addressCore, 'streetSuffix'),
];

export const INTERNATIONAL_ADDRESS_SEQUENCE: SequenceItem[] = [
  item(NS.addressCore, 'internationalStateProvince', required),
  item(NS.addressCore, 'country', required),
  item(NS.addressCore, 'internationalPostcode', required),
  item(NS.consumerAddress, 'internationalAddressLine', required),
];

export const PROVIDER_SEARCH_SEQUENCE: SequenceItem[] = [
  item(NS.providerElements, 'hpiiNumber'),
  item(NS.providerType, 'registrationId'),
  item(NS.individualName, 'familyName', required),
  item(NS.providerIndividualName, 'onlyNameIndicator'),
  item(NS.individualName, 'givenName', { repeats: true }),
  item(NS.providerPersonalDetails, 'dateOfBirth'),
  item(NS.commonElements, 'sex'),
  item(NS.addressCore, 'state'),
  item(NS.addressCore, 'postcode'),
  item(NS.addressCore5, 'searchAustralianAddress'),
  item(NS.addressCore5, 'searchInternationalAddress'),
];

export const PRODUCT_SEQUENCE: SequenceItem[] = [
  item(NS.commonElements, 'vendor', required),
  item(NS.commonElements, 'productName', required),
  item(NS.commonElements, 'productVersion', required),
  item(NS.commonElements, 'platform', required),
];

export const QUALIFIED_ID_SEQUENCE: SequenceItem[] = [
  item(NS.qualifiedId, 'qualifier', required),
  item(NS.qualifiedId, 'id', required),
];

export const TIMESTAMP_SEQUENCE: SequenceItem[] = [
  item(NS.commonElements, 'created', required),
  item(NS.commonElements, 'expires'),
];

function indexOfItem(sequence: SequenceItem[], child: Element): number {
  return sequence.findIndex((entry) => entry.ns === child.namespaceURI && entry.name === child.localName);
}

/**
 * Checks `parent`'s children against `sequence` and returns them by name (repeats in order).
 * `what` names the parent in violations.
 */
export function checkSequence(parent: Element, sequence: SequenceItem[], what: string): Map<string, Element[]> {
  const found = new Map<string, Element[]>();
  let position = -1;
  for (const child of childElements(parent)) {
    const index = indexOfItem(sequence, child);
    if (index === -1) violation(`${what}: unexpected element ${describeElement(child)}`);
    const entry = sequence[index]!;
    if (index < position) violation(`${what}: ${entry.name} is out of order (it must come before ${sequence[position]!.name})`);
    if (index === position && !entry.repeats) violation(`${what}: ${entry.name} appears more than once`);
    position = index;
    found.set(entry.name, [...(found.get(entry.name) ?? []), child]);
  }
  const missing = sequence.find((entry) => entry.required && !found.has(entry.name));
  if (missing) violation(`${what}: ${missing.name} ({${missing.ns}}) is required`);
  return found;
}
