// The request bodies: searchIHI (ConsumerSearchIHI 3.0) for each of the port's search paths and
// searchForProviderIndividual (ProviderSearchForProviderIndividual 5.0.0). Elements follow the
// sequence of ADHA's generated message classes; names go through the port's 40-character cut.
// Every path of the port has its ConsumerSearchIHI 3.0 key: IHI, Medicare card (+IRN), DVA file
// number, an Australian street address, an international address, and (since June 2024, ADHA's
// .NET client 1.8.1) mobile and email as an electronicCommunication. The postal and unstructured
// Australian addresses the service also takes have no path in the port, so none is written.
import { normaliseAustralianMobile, normaliseEmail } from '../../identifiers/index.ts';
import {
  wireName,
  type HiDemographics,
  type IhiSearchPath,
  type IhiSearchRequest,
  type ProviderVerificationRequest,
} from '../hi-service-port.ts';
import { saccCodeOf } from '../sacc-countries.ts';
import { splitStreetType } from './hi-soap-street-types.ts';
import { element, QUALIFIERS, SEARCH_IHI, SEARCH_PROVIDER_INDIVIDUAL, textElement } from './hi-soap-wire.ts';

/**
 * A request that lacks what its path searches on (no key, an address without its parts, a country
 * with no SACC code) is not sent: the port's contract, shared with the simulator, answers such a
 * search "no match" so the precheck goes on to its next path. Sending it would only have the
 * service refuse it below its minimum search criteria (01966), with demographics sent for nothing.
 */
class UnsearchableRequest extends Error {}

function refuseIncomplete(): never {
  throw new UnsearchableRequest('nothing to search on');
}

/** The payload, or undefined when the request has nothing its path can search on. */
function writeUnlessUnsearchable(write: () => string): string | undefined {
  try {
    return write();
  } catch (error) {
    if (error instanceof UnsearchableRequest) return undefined;
    throw error;
  }
}

function required(value: string | undefined): string {
  const trimmed = value?.trim();
  return trimmed ? trimmed : refuseIncomplete();
}

/** The printed 10-digit card number; an 11-digit value carries the IRN as its last digit. */
function writeMedicareKey(request: IhiSearchRequest): string {
  const card = required(request.medicare_card_number).replace(/\s+/g, '');
  const irn = request.medicare_irn?.trim() || (card.length === 11 ? card.slice(10) : undefined);
  return textElement('cc', 'medicareCardNumber', card.slice(0, 10)) + textElement('cc', 'medicareIRN', irn);
}

/** A mobile number in its domestic form (04…), as the clients' samples send it. */
function writeMobile(phone: string): string {
  const compact = phone.replace(/[\s().-]/g, '');
  return normaliseAustralianMobile(compact) ?? compact;
}

/** Mobile and email searches are an electronicCommunication (medium M or E; usage A, "both"). */
function writeElectronicCommunication(medium: 'M' | 'E', details: string): string {
  const parts = textElement('ecc', 'medium', medium) + textElement('ecc', 'usage', 'A') + textElement('cec', 'details', details);
  return element('cec', 'electronicCommunication', parts);
}

function writeStreetAddress(request: IhiSearchRequest): string {
  const address = request.australian_street_address ?? refuseIncomplete();
  const street = splitStreetType(required(address.street_name));
  const parts =
    textElement('addr', 'state', required(address.state).toUpperCase()) +
    textElement('addr', 'postcode', required(address.postcode)) +
    textElement('ca', 'suburb', required(address.suburb)) +
    textElement('addr', 'streetNumber', required(address.street_number)) +
    textElement('addr', 'streetName', street.streetName) +
    textElement('addr', 'streetType', street.streetType);
  return element('ca', 'australianStreetAddress', parts);
}

/** The country goes as its 4-digit SACC code; a value that already is one passes unchanged. */
function writeInternationalAddress(request: IhiSearchRequest): string {
  const address = request.international_address ?? refuseIncomplete();
  const country = required(address.country);
  const sacc = /^\d{4}$/.test(country) ? country : (saccCodeOf(country) ?? refuseIncomplete());
  const parts =
    textElement('addr', 'internationalStateProvince', required(address.state_province)) +
    textElement('addr', 'country', sacc) +
    textElement('addr', 'internationalPostcode', required(address.postcode)) +
    textElement('ca', 'internationalAddressLine', required(address.address_line));
  return element('ca', 'internationalAddress', parts);
}

/** Each path's key, placed at its slot: before the demographics, or after them for addresses. */
const SEARCH_KEYS: Record<IhiSearchPath, { slot: 'before' | 'after'; write: (request: IhiSearchRequest) => string }> = {
  ihi_number: { slot: 'before', write: (r) => textElement('cc', 'ihiNumber', `${QUALIFIERS.ihi}${required(r.ihi_number)}`) },
  medicare: { slot: 'before', write: writeMedicareKey },
  dva: { slot: 'before', write: (r) => textElement('cc', 'dvaFileNumber', required(r.dva_file_number)) },
  mobile: {
    slot: 'before',
    write: (r) => writeElectronicCommunication('M', writeMobile(required(r.phone))),
  },
  email: { slot: 'before', write: (r) => writeElectronicCommunication('E', normaliseEmail(required(r.email))) },
  'australian-street-address': { slot: 'after', write: writeStreetAddress },
  'international-address': { slot: 'after', write: writeInternationalAddress },
};

function writeDemographics(demographics: HiDemographics): string {
  const givenName = demographics.given_name.trim();
  return (
    textElement('ce', 'dateOfBirth', required(demographics.date_of_birth)) +
    textElement('ce', 'sex', demographics.sex) +
    textElement('name', 'familyName', wireName(required(demographics.family_name))) +
    textElement('name', 'givenName', givenName === '' ? undefined : wireName(givenName))
  );
}

/** The body's payload of a searchIHI request for the request's one path. */
export function writeSearchIhiBody(request: IhiSearchRequest): string | undefined {
  return writeUnlessUnsearchable(() => writeSearchIhiPayload(request));
}

function writeSearchIhiPayload(request: IhiSearchRequest): string {
  const key = SEARCH_KEYS[request.path] ?? refuseIncomplete();
  const keyXml = key.write(request);
  const demographics = writeDemographics(request.demographics);
  const children = key.slot === 'before' ? keyXml + demographics : demographics + keyXml;
  return element('ihiSvc', SEARCH_IHI.name, children);
}

/** The body's payload of a provider search by HPI-I and name, date of birth and sex. */
export function writeProviderSearchBody(request: ProviderVerificationRequest): string | undefined {
  return writeUnlessUnsearchable(() => writeProviderSearchPayload(request));
}

function writeProviderSearchPayload(request: ProviderVerificationRequest): string {
  const givenNames = request.given_name.trim().split(/\s+/).filter(Boolean);
  const children =
    textElement('pce', 'hpiiNumber', `${QUALIFIERS.hpii}${required(request.hpii_number)}`) +
    textElement('name', 'familyName', wireName(required(request.family_name))) +
    textElement('pin', 'onlyNameIndicator', givenNames.length === 0 ? 'true' : 'false') +
    givenNames.map((name) => textElement('name', 'givenName', wireName(name))).join('') +
    textElement('ppd', 'dateOfBirth', required(request.date_of_birth)) +
    textElement('ce', 'sex', request.sex);
  return element('hpiiSvc', SEARCH_PROVIDER_INDIVIDUAL.name, children);
}
