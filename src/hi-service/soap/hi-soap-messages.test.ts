// The request bodies: for each search path, the elements in the sequence of ADHA's generated
// classes (names and namespaces), the qualified identifiers, the 40-character name cut, the SACC
// country code and the street type; a request with nothing to search on is not written.
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import type { IhiSearchPath } from '../index.ts';
import type { IhiSearchRequest, ProviderVerificationRequest } from '../hi-service-port.ts';
import { writeProviderSearchBody, writeSearchIhiBody } from './hi-soap-messages.ts';
import { NS, declareNamespaces } from './hi-soap-wire.ts';

const PREFIX_OF = new Map<string, string>(Object.entries(NS).map(([prefix, uri]) => [uri, prefix]));

function parsePayload(payload: string): Element {
  const document = new DOMParser().parseFromString(`<wrap ${declareNamespaces()}>${payload}</wrap>`, 'text/xml');
  return document.documentElement!.firstChild as Element;
}

function children(element: Element): Element[] {
  return Array.from(element.childNodes).filter((node): node is Element => node.nodeType === 1);
}

/** `prefix:localName` of each child, the prefix naming the namespace as hi-soap-wire does. */
function sequenceOf(element: Element): string[] {
  return children(element).map((child) => `${PREFIX_OF.get(child.namespaceURI ?? '') ?? '?'}:${child.localName}`);
}

function textAt(element: Element, localName: string): string | undefined {
  return element.getElementsByTagNameNS('*', localName)[0]?.textContent ?? undefined;
}

const demographics = { family_name: 'Wood', given_name: 'Jessica', date_of_birth: '2002-12-12', sex: 'F' as const };
const DEMOGRAPHICS = ['ce:dateOfBirth', 'ce:sex', 'name:familyName', 'name:givenName'];

const REQUESTS: Record<IhiSearchPath, IhiSearchRequest> = {
  ihi_number: { path: 'ihi_number', demographics, ihi_number: '8003601240022579' },
  medicare: { path: 'medicare', demographics, medicare_card_number: '2950141861', medicare_irn: '1' },
  dva: { path: 'dva', demographics, dva_file_number: 'N 908030D' },
  mobile: { path: 'mobile', demographics, phone: '+61 401 100 200' },
  email: { path: 'email', demographics, email: ' Jessica.Wood@Example.org ' },
  'australian-street-address': {
    path: 'australian-street-address',
    demographics,
    australian_street_address: { street_number: '21', street_name: 'Ross Road', suburb: 'Queanbeyan', state: 'nsw', postcode: '2620' },
  },
  'international-address': {
    path: 'international-address',
    demographics,
    international_address: { address_line: '1 Queen Street', country: 'NZ', postcode: '1010', state_province: 'Auckland' },
  },
};

const EXPECTED_SEQUENCES: Record<IhiSearchPath, string[]> = {
  ihi_number: ['cc:ihiNumber', ...DEMOGRAPHICS],
  medicare: ['cc:medicareCardNumber', 'cc:medicareIRN', ...DEMOGRAPHICS],
  dva: ['cc:dvaFileNumber', ...DEMOGRAPHICS],
  mobile: ['cec:electronicCommunication', ...DEMOGRAPHICS],
  email: ['cec:electronicCommunication', ...DEMOGRAPHICS],
  'australian-street-address': [...DEMOGRAPHICS, 'ca:australianStreetAddress'],
  'international-address': [...DEMOGRAPHICS, 'ca:internationalAddress'],
};

describe('searchIHI body', () => {
  it.each(Object.keys(REQUESTS) as IhiSearchPath[])('puts the %s key and the demographics in the generated classes order', (path) => {
    const payload = parsePayload(writeSearchIhiBody(REQUESTS[path])!);
    expect(`${payload.namespaceURI} ${payload.localName}`).toBe(`${NS.ihiSvc} searchIHI`);
    expect(sequenceOf(payload)).toEqual(EXPECTED_SEQUENCES[path]);
  });

  it('sends the IHI as its qualified URI and the demographics as given', () => {
    const payload = parsePayload(writeSearchIhiBody(REQUESTS.ihi_number)!);
    expect(textAt(payload, 'ihiNumber')).toBe('http://ns.electronichealth.net.au/id/hi/ihi/1.0/8003601240022579');
    expect([textAt(payload, 'dateOfBirth'), textAt(payload, 'sex'), textAt(payload, 'familyName'), textAt(payload, 'givenName')]).toEqual([
      '2002-12-12', 'F', 'Wood', 'Jessica',
    ]);
  });

  it('splits an 11-digit Medicare number into the card number and the IRN', () => {
    const payload = parsePayload(writeSearchIhiBody({ ...REQUESTS.medicare, medicare_card_number: '29501418611', medicare_irn: undefined })!);
    expect([textAt(payload, 'medicareCardNumber'), textAt(payload, 'medicareIRN')]).toEqual(['2950141861', '1']);
  });

  it('leaves the IRN out when the request has none', () => {
    const payload = parsePayload(writeSearchIhiBody({ ...REQUESTS.medicare, medicare_irn: undefined })!);
    expect(sequenceOf(payload)).toEqual(['cc:medicareCardNumber', ...DEMOGRAPHICS]);
  });

  it.each([
    ['mobile', 'M', '0401100200'],
    ['email', 'E', 'jessica.wood@example.org'],
  ] as const)('sends a %s search as an electronicCommunication (medium %s, usage A, details)', (path, medium, details) => {
    const communication = children(parsePayload(writeSearchIhiBody(REQUESTS[path])!))[0]!;
    expect(sequenceOf(communication)).toEqual(['ecc:medium', 'ecc:usage', 'cec:details']);
    expect(children(communication).map((c) => c.textContent)).toEqual([medium, 'A', details]);
  });

  it('writes a street address as state, postcode, suburb, number, name and the street type code', () => {
    const address = children(parsePayload(writeSearchIhiBody(REQUESTS['australian-street-address'])!)).at(-1)!;
    expect(sequenceOf(address)).toEqual(['addr:state', 'addr:postcode', 'ca:suburb', 'addr:streetNumber', 'addr:streetName', 'addr:streetType']);
    expect(children(address).map((c) => c.textContent)).toEqual(['NSW', '2620', 'Queanbeyan', '21', 'Ross', 'RD']);
  });

  it('keeps a street name whole when its last word is no street type', () => {
    const request = REQUESTS['australian-street-address'];
    const address = { ...request.australian_street_address!, street_name: 'The Esplanade North' };
    const element = children(parsePayload(writeSearchIhiBody({ ...request, australian_street_address: address })!)).at(-1)!;
    expect(sequenceOf(element)).not.toContain('addr:streetType');
    expect(textAt(element, 'streetName')).toBe('The Esplanade North');
  });

  it('writes an international address with the country as its SACC code', () => {
    const address = children(parsePayload(writeSearchIhiBody(REQUESTS['international-address'])!)).at(-1)!;
    expect(sequenceOf(address)).toEqual(['addr:internationalStateProvince', 'addr:country', 'addr:internationalPostcode', 'ca:internationalAddressLine']);
    expect(children(address).map((c) => c.textContent)).toEqual(['Auckland', '1201', '1010', '1 Queen Street']);
  });

  it('cuts family and given names to 40 characters on the wire', () => {
    const long = { ...demographics, family_name: 'F'.repeat(45), given_name: 'G'.repeat(41) };
    const payload = parsePayload(writeSearchIhiBody({ ...REQUESTS.dva, demographics: long })!);
    expect([textAt(payload, 'familyName'), textAt(payload, 'givenName')]).toEqual(['F'.repeat(40), 'G'.repeat(40)]);
  });

  it('leaves givenName out for a person with one name', () => {
    const payload = parsePayload(writeSearchIhiBody({ ...REQUESTS.dva, demographics: { ...demographics, given_name: '' } })!);
    expect(sequenceOf(payload)).toEqual(['cc:dvaFileNumber', 'ce:dateOfBirth', 'ce:sex', 'name:familyName']);
  });

  it('escapes markup in what the request carries', () => {
    const payload = writeSearchIhiBody({ ...REQUESTS.dva, demographics: { ...demographics, family_name: `O'Brien <&>` } })!;
    expect(textAt(parsePayload(payload), 'familyName')).toBe(`O'Brien <&>`);
  });

  it.each([
    ['an ihi_number search without an IHI', { path: 'ihi_number', demographics }],
    ['a medicare search without a card number', { path: 'medicare', demographics, medicare_irn: '1' }],
    ['a mobile search without a phone', { path: 'mobile', demographics, email: 'a@b.org' }],
    ['a street address without a postcode', { ...REQUESTS['australian-street-address'], australian_street_address: { ...REQUESTS['australian-street-address'].australian_street_address!, postcode: ' ' } }],
    ['an international address in a country with no SACC code', { ...REQUESTS['international-address'], international_address: { address_line: '1 Main St', country: 'AQ', postcode: '1', state_province: 'x' } }],
    ['an international address without a state or province', { ...REQUESTS['international-address'], international_address: { address_line: '1 Main St', country: 'NZ', postcode: '1' } }],
  ] as [string, IhiSearchRequest][])('writes nothing for %s', (_name, request) => {
    expect(writeSearchIhiBody(request)).toBeUndefined();
  });
});

describe('searchForProviderIndividual body', () => {
  const provider: ProviderVerificationRequest = { hpii_number: '8003619166667284', family_name: 'Hpids', given_name: 'Frank Peter', date_of_birth: '1970-01-01', sex: 'M' };

  it('puts HPI-I, family name, onlyNameIndicator, each given name, date of birth and sex in order', () => {
    const payload = parsePayload(writeProviderSearchBody(provider)!);
    expect(`${payload.namespaceURI} ${payload.localName}`).toBe(`${NS.hpiiSvc} searchForProviderIndividual`);
    expect(sequenceOf(payload)).toEqual(['pce:hpiiNumber', 'name:familyName', 'pin:onlyNameIndicator', 'name:givenName', 'name:givenName', 'ppd:dateOfBirth', 'ce:sex']);
    expect(children(payload).map((c) => c.textContent)).toEqual([
      'http://ns.electronichealth.net.au/id/hi/hpii/1.0/8003619166667284', 'Hpids', 'false', 'Frank', 'Peter', '1970-01-01', 'M',
    ]);
  });

  it('marks a provider with one name by onlyNameIndicator and sends no given name', () => {
    const payload = parsePayload(writeProviderSearchBody({ ...provider, given_name: '' })!);
    expect(sequenceOf(payload)).toEqual(['pce:hpiiNumber', 'name:familyName', 'pin:onlyNameIndicator', 'ppd:dateOfBirth', 'ce:sex']);
    expect(textAt(payload, 'onlyNameIndicator')).toBe('true');
  });

  it('writes nothing without an HPI-I', () => {
    expect(writeProviderSearchBody({ ...provider, hpii_number: '' })).toBeUndefined();
  });
});
