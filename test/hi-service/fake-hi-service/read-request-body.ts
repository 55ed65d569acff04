// Reads a request body the way the service would: checks the element order, the qualified
// identifiers and the search type's key fields, then maps it to the port's request so the
// sandbox simulator can decide the answer from the fixtures.
import type { Element } from '@xmldom/xmldom';
import type { HiSex, IhiSearchPath } from '../../../src/hi-service/index.ts';
import type { IhiSearchRequest, ProviderVerificationRequest } from '../../../src/hi-service/hi-service-port.ts';
import { countryOfSaccCode } from './sacc-countries.ts';
import {
  checkSequence,
  ELECTRONIC_COMMUNICATION_SEQUENCE,
  INTERNATIONAL_ADDRESS_SEQUENCE,
  PROVIDER_SEARCH_SEQUENCE,
  SEARCH_IHI_SEQUENCE,
  STREET_ADDRESS_SEQUENCE,
} from './element-order.ts';
import { IDENTIFIER_QUALIFIERS } from './hi-wire.ts';
import { readText, violation } from './xml-dom.ts';

const SEX_CODES: HiSex[] = ['M', 'F', 'N', 'I'];
const MAX_NAME_LENGTH = 40;

type Fields = Map<string, Element[]>;

function textOf(fields: Fields, name: string): string | undefined {
  const element = fields.get(name)?.[0];
  return element === undefined ? undefined : readText(element);
}

function requireTextOf(fields: Fields, name: string, what: string): string {
  const text = textOf(fields, name);
  if (text === undefined || text === '') violation(`${what}: ${name} is required and may not be empty`);
  return text;
}

function readName(fields: Fields, name: string, what: string): string {
  const text = requireTextOf(fields, name, what);
  if (text.length > MAX_NAME_LENGTH) violation(`${what}: ${name} is longer than ${MAX_NAME_LENGTH} characters`);
  return text;
}

function readDate(text: string, what: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) violation(`${what}: dateOfBirth must be an xs:date (YYYY-MM-DD)`);
  return text;
}

function readSex(text: string, what: string): HiSex {
  if (!SEX_CODES.includes(text as HiSex)) violation(`${what}: sex must be one of ${SEX_CODES.join(', ')}`);
  return text as HiSex;
}

function unqualify(text: string, qualifier: string, what: string): string {
  if (!text.startsWith(qualifier)) violation(`${what} must be a qualified identifier starting ${qualifier}`);
  const number = text.slice(qualifier.length);
  if (!/^\d{16}$/.test(number)) violation(`${what} must end in 16 digits`);
  return number;
}

type IhiKeyReader = (fields: Fields, what: string) => Partial<IhiSearchRequest> & { path: IhiSearchPath };

function readElectronicCommunication(fields: Fields, what: string): ReturnType<IhiKeyReader> {
  const element = fields.get('electronicCommunication')![0]!;
  const parts = checkSequence(element, ELECTRONIC_COMMUNICATION_SEQUENCE, `${what}/electronicCommunication`);
  const medium = textOf(parts, 'medium');
  const details = requireTextOf(parts, 'details', `${what}/electronicCommunication`);
  if (!['A', 'B', 'P'].includes(textOf(parts, 'usage') ?? '')) violation(`${what}: electronicCommunication usage must be A, B or P`);
  if (medium === 'M') return { path: 'mobile', phone: details };
  if (medium === 'E') return { path: 'email', email: details };
  return violation(`${what}: electronicCommunication medium must be M (mobile) or E (email) for a search`);
}

function readStreetAddress(fields: Fields, what: string): ReturnType<IhiKeyReader> {
  const parts = checkSequence(fields.get('australianStreetAddress')![0]!, STREET_ADDRESS_SEQUENCE, `${what}/australianStreetAddress`);
  const postcode = requireTextOf(parts, 'postcode', what);
  if (!/^\d{4}$/.test(postcode)) violation(`${what}: postcode must be 4 digits`);
  const streetName = [textOf(parts, 'streetName'), textOf(parts, 'streetType'), textOf(parts, 'streetSuffix')];
  return {
    path: 'australian-street-address',
    australian_street_address: {
      street_number: requireTextOf(parts, 'streetNumber', `${what}/australianStreetAddress`),
      street_name: streetName.filter((part) => part !== undefined && part !== '').join(' '),
      suburb: requireTextOf(parts, 'suburb', what),
      state: requireTextOf(parts, 'state', what),
      postcode,
    },
  };
}

function readInternationalAddress(fields: Fields, what: string): ReturnType<IhiKeyReader> {
  const parts = checkSequence(fields.get('internationalAddress')![0]!, INTERNATIONAL_ADDRESS_SEQUENCE, `${what}/internationalAddress`);
  const saccCode = requireTextOf(parts, 'country', what);
  const country = countryOfSaccCode(saccCode) ?? violation(`${what}: country ${saccCode} is not a SACC code the fake knows`);
  return {
    path: 'international-address',
    international_address: {
      address_line: requireTextOf(parts, 'internationalAddressLine', what),
      country,
      postcode: requireTextOf(parts, 'internationalPostcode', what),
      state_province: requireTextOf(parts, 'internationalStateProvince', what),
    },
  };
}

function readMedicare(fields: Fields, what: string): ReturnType<IhiKeyReader> {
  const card = requireTextOf(fields, 'medicareCardNumber', what);
  if (!/^\d{10}$/.test(card)) violation(`${what}: medicareCardNumber must be 10 digits`);
  const irn = textOf(fields, 'medicareIRN');
  if (irn !== undefined && !/^[1-9]$/.test(irn)) violation(`${what}: medicareIRN must be one digit from 1 to 9`);
  return irn === undefined ? { path: 'medicare', medicare_card_number: card } : { path: 'medicare', medicare_card_number: card, medicare_irn: irn };
}

// The search types: each has its key element; a request must carry exactly one type's key
// (the IRN goes with the Medicare card number only).
const IHI_SEARCH_KEYS: [string, IhiKeyReader][] = [
  ['ihiNumber', (fields, what) => ({ path: 'ihi_number', ihi_number: unqualify(requireTextOf(fields, 'ihiNumber', what), IDENTIFIER_QUALIFIERS.ihi, `${what}: ihiNumber`) })],
  ['medicareCardNumber', readMedicare],
  ['dvaFileNumber', (fields, what) => ({ path: 'dva', dva_file_number: requireTextOf(fields, 'dvaFileNumber', what) })],
  ['electronicCommunication', readElectronicCommunication],
  ['australianStreetAddress', readStreetAddress],
  ['internationalAddress', readInternationalAddress],
];

/** The searchIHI payload as the port's request; a violation when the service would refuse it. */
export function readSearchIhi(payload: Element): IhiSearchRequest {
  const what = 'searchIHI';
  const fields = checkSequence(payload, SEARCH_IHI_SEQUENCE, what);
  if (fields.has('medicareIRN') && !fields.has('medicareCardNumber')) violation(`${what}: medicareIRN without medicareCardNumber`);
  for (const unsupported of ['australianPostalAddress', 'australianUnstructuredStreetAddress', 'history']) {
    if (fields.has(unsupported)) violation(`${what}: ${unsupported} is not a search erx makes`);
  }
  const keys = IHI_SEARCH_KEYS.filter(([name]) => fields.has(name));
  if (keys.length === 0) violation(`${what}: no search key (ihiNumber, Medicare, DVA, electronicCommunication or an address): minimum search criteria not met`);
  if (keys.length > 1) violation(`${what}: more than one search key (${keys.map(([name]) => name).join(', ')})`);
  const identifiers = keys[0]![1](fields, what);
  const givenName = fields.has('givenName') ? readName(fields, 'givenName', what) : '';
  return {
    ...identifiers,
    demographics: {
      family_name: readName(fields, 'familyName', what),
      given_name: givenName,
      date_of_birth: readDate(requireTextOf(fields, 'dateOfBirth', what), what),
      sex: readSex(requireTextOf(fields, 'sex', what), what),
    },
  };
}

/** The searchForProviderIndividual payload as the port's verification request. */
export function readProviderSearch(payload: Element): ProviderVerificationRequest {
  const what = 'searchForProviderIndividual';
  const fields = checkSequence(payload, PROVIDER_SEARCH_SEQUENCE, what);
  if (!fields.has('hpiiNumber')) violation(`${what}: erx searches by hpiiNumber; it is required`);
  if (fields.has('registrationId')) violation(`${what}: hpiiNumber and registrationId together`);
  for (const demographicOnly of ['state', 'postcode', 'searchAustralianAddress', 'searchInternationalAddress']) {
    if (fields.has(demographicOnly)) violation(`${what}: ${demographicOnly} is not allowed in an identifier search`);
  }
  const givenNames = (fields.get('givenName') ?? []).map((element) => readText(element));
  if (givenNames.some((name) => name.length > MAX_NAME_LENGTH)) violation(`${what}: givenName is longer than ${MAX_NAME_LENGTH} characters`);
  const dateOfBirth = textOf(fields, 'dateOfBirth');
  const sex = textOf(fields, 'sex');
  if (dateOfBirth === undefined || sex === undefined) violation(`${what}: erx must send dateOfBirth and sex to verify a provider`);
  return {
    hpii_number: unqualify(requireTextOf(fields, 'hpiiNumber', what), IDENTIFIER_QUALIFIERS.hpii, `${what}: hpiiNumber`),
    family_name: readName(fields, 'familyName', what),
    given_name: givenNames.join(' '),
    date_of_birth: readDate(dateOfBirth, what),
    sex: readSex(sex, what),
  };
}
