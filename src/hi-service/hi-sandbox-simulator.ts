// The sandbox HI Service: answers searches and provider verifications from fixtures.
// It sits on the precheck's benchmarked hot path, so every identifier is normalised once
// at construction into a Map per search path, and a search costs one Map lookup plus a
// comparison per record sharing that identifier (usually one).

import { setTimeout as sleepFor } from 'node:timers/promises';
import { normaliseAustralianMobile, normaliseEmail } from '../identifiers/index.ts';
import type { HiFixtures, HiPatientFixture, HiProviderFixture } from './hi-fixture-file.ts';
import {
  HiServiceUnreachableError,
  IHI_SEARCH_PATHS,
  type HiDemographics,
  type HiServicePort,
  type IhiFound,
  type IhiSearchIdentifiers,
  type IhiSearchPath,
  type IhiSearchRequest,
  type IhiSearchResult,
  type InternationalAddress,
  type ProviderVerification,
  type ProviderVerificationRequest,
} from './hi-service-port.ts';

export type HiSandboxSimulatorOptions = {
  fixtures: HiFixtures;
  /** Delay added to every call, in milliseconds, to imitate the real service; 0 by default. */
  latencyMs?: number;
  sleep?: (ms: number) => Promise<void>;
};

type Indexed<Fixture> = { record: Fixture; demographics: ComparableDemographics };
type Index<Fixture> = Map<string, Indexed<Fixture>[]>;

function keepDigits(value: string | undefined): string | undefined {
  const digits = value?.replace(/\D/g, '');
  return digits === '' ? undefined : digits;
}

/** Case- and space-insensitive form of a free-text field (addresses, DVA numbers). */
function compactText(value: string): string {
  return value.replace(/\s+/g, '').toLowerCase();
}

function normaliseName(value: string): string {
  return value.trim().replace(/\s+/g, ' ').toLowerCase();
}

// How a search compares each demographic field: names case- and space-insensitive. Records are
// put in this form once, when indexed; a request field by field, as matchesDemographics needs it.
const familyNameOf = (person: HiDemographics) => normaliseName(person.family_name);
const givenNameOf = (person: HiDemographics) => normaliseName(person.given_name);
const dateOfBirthOf = (person: HiDemographics) => person.date_of_birth.trim();
const sexOf = (person: HiDemographics) => person.sex.toUpperCase();

/** A record's demographics as searches compare them. */
interface ComparableDemographics {
  familyName: string;
  givenName: string;
  dateOfBirth: string;
  sex: string;
}

function comparableDemographics(person: HiDemographics): ComparableDemographics {
  return { familyName: familyNameOf(person), givenName: givenNameOf(person), dateOfBirth: dateOfBirthOf(person), sex: sexOf(person) };
}

// Field by field, the cheap ones first: the names are normalised only when the date of birth
// and sex already match (a search usually meets one record).
function matchesDemographics(recorded: ComparableDemographics, person: HiDemographics): boolean {
  return (
    recorded.dateOfBirth === dateOfBirthOf(person) &&
    recorded.sex === sexOf(person) &&
    recorded.familyName === familyNameOf(person) &&
    recorded.givenName === givenNameOf(person)
  );
}

function buildMedicareKey(fields: IhiSearchIdentifiers): string | undefined {
  const card = keepDigits(fields.medicare_card_number);
  const irn = keepDigits(fields.medicare_irn);
  return card === undefined || irn === undefined ? undefined : `${card}/${irn}`;
}

function buildTextKey(...values: string[]): string {
  return JSON.stringify(values.map(compactText));
}

// One entry per path: the normalised identifier of a record or request, undefined when absent.
// Records and requests share the identifier field names, so one function serves both.
const SEARCH_KEYS: Record<IhiSearchPath, (fields: IhiSearchIdentifiers) => string | undefined> = {
  ihi_number: (fields) => keepDigits(fields.ihi_number),
  medicare: buildMedicareKey,
  dva: (fields) => (fields.dva_file_number ? compactText(fields.dva_file_number) : undefined),
  mobile: (fields) => (fields.phone ? normaliseAustralianMobile(fields.phone) : null) ?? undefined,
  email: (fields) => (fields.email ? normaliseEmail(fields.email) : undefined),
  'australian-street-address': ({ australian_street_address: address }) =>
    address &&
    buildTextKey(
      address.street_number,
      address.street_name,
      address.suburb,
      address.state,
      address.postcode,
    ),
  'international-address': ({ international_address: address }) =>
    address && buildTextKey(address.address_line, address.country),
};

function addToIndex<Fixture>(index: Index<Fixture>, key: string, entry: Indexed<Fixture>): void {
  const entries = index.get(key);
  if (entries === undefined) index.set(key, [entry]);
  else entries.push(entry);
}

type PatientIndexes = Map<IhiSearchPath, Index<HiPatientFixture>>;

function buildPatientIndexes(patients: HiPatientFixture[]): PatientIndexes {
  const indexes: PatientIndexes = new Map(IHI_SEARCH_PATHS.map((path) => [path, new Map()]));
  for (const record of patients) {
    const entry = { record, demographics: comparableDemographics(record) };
    for (const [path, index] of indexes) {
      const key = SEARCH_KEYS[path](record);
      if (key !== undefined) addToIndex(index, key, entry);
    }
  }
  return indexes;
}

function buildProviderIndex(providers: HiProviderFixture[]): Index<HiProviderFixture> {
  const index: Index<HiProviderFixture> = new Map();
  for (const record of providers) {
    const key = keepDigits(record.hpii_number);
    if (key === undefined) continue;
    addToIndex(index, key, { record, demographics: comparableDemographics(record) });
  }
  return index;
}

// An international record's postcode and state/province, when it has them, are part of its
// identifier: a request must carry the same values.
function matchesInternationalDetails(
  recorded: InternationalAddress | undefined,
  searched: InternationalAddress | undefined,
): boolean {
  return (['postcode', 'state_province'] as const).every((field) => {
    const expected = recorded?.[field];
    const given = searched?.[field];
    if (expected === undefined) return true;
    return given !== undefined && compactText(given) === compactText(expected);
  });
}

function toFoundResult(record: HiPatientFixture): IhiFound {
  const result: IhiFound = { kind: 'found', ihi_number: record.ihi_number };
  if (record.ihi_status !== undefined) result.ihi_status = record.ihi_status;
  if (record.ihi_record_status !== undefined) result.ihi_record_status = record.ihi_record_status;
  return result;
}

function throwUnreachable(): never {
  throw new HiServiceUnreachableError('HI Service unreachable (sandbox fixture fault)');
}

function isReachedBy(record: HiPatientFixture, request: IhiSearchRequest): boolean {
  if (request.path !== 'international-address') return true;
  return matchesInternationalDetails(record.international_address, request.international_address);
}

// Records sharing an identifier are met in fixture order: an `unreachable` one fails the
// search as soon as it is reached; otherwise the first whose demographics match answers.
function findPatient(indexes: PatientIndexes, request: IhiSearchRequest): IhiSearchResult {
  const key = SEARCH_KEYS[request.path](request);
  const entries = key === undefined ? undefined : indexes.get(request.path)?.get(key);
  if (entries === undefined) return { kind: 'no_match' };
  for (const { record, demographics } of entries) {
    if (!isReachedBy(record, request)) continue;
    if (record.fault === 'unreachable') throwUnreachable();
    if (matchesDemographics(demographics, request.demographics)) return toFoundResult(record);
  }
  return { kind: 'no_match' };
}

function verifyProviderRecord(
  index: Index<HiProviderFixture>,
  request: ProviderVerificationRequest,
): ProviderVerification {
  const key = keepDigits(request.hpii_number);
  const entries = key === undefined ? undefined : index.get(key);
  if (entries === undefined) return { kind: 'no_match' };
  for (const { record, demographics } of entries) {
    if (record.fault === 'unreachable') throwUnreachable();
    if (!matchesDemographics(demographics, request)) continue;
    return record.fault === 'no_status' ? { kind: 'no_status' } : { kind: 'verified' };
  }
  return { kind: 'no_match' };
}

export function createHiSandboxSimulator(options: HiSandboxSimulatorOptions): HiServicePort {
  const patientIndexes = buildPatientIndexes(options.fixtures.patients);
  const providerIndex = buildProviderIndex(options.fixtures.providers);
  const latencyMs = options.latencyMs ?? 0;
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms));
  return {
    async searchIhi(request) {
      if (latencyMs > 0) await sleep(latencyMs);
      return findPatient(patientIndexes, request);
    },
    async verifyProvider(request) {
      if (latencyMs > 0) await sleep(latencyMs);
      return verifyProviderRecord(providerIndex, request);
    },
  };
}
