// The sandbox HI Service: answers searches and provider verifications from fixtures.
// It sits on the precheck's benchmarked hot path, so every identifier is normalised once
// at construction into a Map per search path, and a search costs one Map lookup plus a
// comparison per record sharing that identifier (usually one).

import { setTimeout as sleepFor } from 'node:timers/promises';
import { normaliseAustralianMobile, normaliseEmail } from '../identifiers/index.ts';
import { HI_FIXTURE_DEFAULT_REJECTION, type HiFixtures, type HiPatientFixture, type HiProviderFixture } from './hi-fixture-file.ts';
import {
  HiServiceRejectedError,
  HiServiceUnreachableError,
  IHI_SEARCH_PATHS,
  type HiDemographics,
  type HiServicePort,
  type IhiFound,
  type IhiSearchIdentifiers,
  type IhiSearchPath,
  type IhiSearchRequest,
  type IhiSearchResult,
  type HiCallContext,
  type ProviderVerification,
  type ProviderVerificationRequest,
  wireName,
} from './hi-service-port.ts';
import { saccCodeOf } from './sacc-countries.ts';

export type HiSandboxSimulatorOptions = {
  fixtures: HiFixtures;
  /** Delay added to every call, in milliseconds, to imitate the real service; 0 by default. */
  latencyMs?: number;
  /**
   * The per-call timeout (ERX_HI_TIMEOUT_MS): a latency above it waits this long, then the call
   * fails as unreachable, as the SOAP adapter's would. Absent: no timeout.
   */
  timeoutMs?: number;
  /** Waits `ms`; may stop early when `signal` aborts (the simulator stops waiting then anyway). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
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

// How a search compares each demographic field: names case- and space-insensitive, on the form
// the wire carries (the first 40 characters, wireName), as the HI Service sees them. Records are
// put in this form once, when indexed; a request field by field, as matchesDemographics needs it.
const familyNameOf = (person: HiDemographics) => normaliseName(wireName(person.family_name));
const givenNameOf = (person: HiDemographics) => normaliseName(wireName(person.given_name));
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
  'international-address': buildInternationalKey,
};

// All four parts are the identifier, the country as the SACC code the wire carries: a request
// lacking a part, or naming a country without a code, finds nothing.
function buildInternationalKey({ international_address: address }: IhiSearchIdentifiers): string | undefined {
  if (address?.postcode === undefined || address.state_province === undefined) return undefined;
  const country = saccCodeOf(address.country);
  if (country === undefined) return undefined;
  return buildTextKey(address.address_line, address.postcode, address.state_province, country);
}

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

function toFoundResult(record: HiPatientFixture): IhiFound {
  const result: IhiFound = { kind: 'found', ihi_number: record.ihi_number };
  if (record.ihi_status !== undefined) result.ihi_status = record.ihi_status;
  if (record.ihi_record_status !== undefined) result.ihi_record_status = record.ihi_record_status;
  return result;
}

/** A record's `unreachable` or `rejected` fault fails the call that reaches it. */
function throwFault(record: HiPatientFixture | HiProviderFixture): void {
  if (record.fault === 'unreachable') throw new HiServiceUnreachableError('HI Service unreachable (sandbox fixture fault)');
  if (record.fault === 'rejected') {
    const severity = record.fault_severity ?? HI_FIXTURE_DEFAULT_REJECTION.severity;
    throw new HiServiceRejectedError(severity, record.fault_code ?? HI_FIXTURE_DEFAULT_REJECTION.code);
  }
}

// Records sharing an identifier are met in fixture order: an `unreachable` or `rejected` one
// fails the search as soon as it is reached; otherwise the first whose demographics match answers.
function findPatient(indexes: PatientIndexes, request: IhiSearchRequest): IhiSearchResult {
  const key = SEARCH_KEYS[request.path](request);
  const entries = key === undefined ? undefined : indexes.get(request.path)?.get(key);
  if (entries === undefined) return { kind: 'no_match' };
  for (const { record, demographics } of entries) {
    throwFault(record);
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
    throwFault(record);
    if (!matchesDemographics(demographics, request)) continue;
    if (record.fault === 'no_status') return { kind: 'no_status' };
    const status = record.hpii_status ?? 'active';
    return status === 'active' ? { kind: 'verified' } : { kind: 'inactive' };
  }
  return { kind: 'no_match' };
}

function abortedError(): HiServiceUnreachableError {
  return new HiServiceUnreachableError("HI Service call abandoned: the request's time budget ran out");
}

/**
 * Waits as the real service would take to answer: the latency, or the per-call timeout when
 * the latency exceeds it (the call then fails), or until the request's budget aborts the call.
 */
async function imitateLatency(options: HiSandboxSimulatorOptions, sleep: NonNullable<HiSandboxSimulatorOptions['sleep']>, context: HiCallContext): Promise<void> {
  const latencyMs = options.latencyMs ?? 0;
  // No latency: the answer is there at once, before any budget could run out (and the budget's
  // signal, made on first read, is not made for nothing: ihi-search.ts).
  if (latencyMs <= 0) return;
  const signal = context.signal;
  if (signal?.aborted) throw abortedError();
  const timedOut = options.timeoutMs !== undefined && latencyMs > options.timeoutMs;
  const waitMs = timedOut ? options.timeoutMs! : latencyMs;
  if (signal === undefined) await sleep(waitMs);
  else await sleepUnlessAborted(sleep, waitMs, signal);
  if (timedOut) throw new HiServiceUnreachableError(`HI Service did not answer within ${options.timeoutMs} ms`);
}

function sleepUnlessAborted(sleep: NonNullable<HiSandboxSimulatorOptions['sleep']>, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    sleep(ms, signal).then(
      () => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(abortedError());
        else resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? abortedError() : error);
      },
    );
  });
}

const realSleep = (ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, { signal });

export function createHiSandboxSimulator(options: HiSandboxSimulatorOptions): HiServicePort {
  const patientIndexes = buildPatientIndexes(options.fixtures.patients);
  const providerIndex = buildProviderIndex(options.fixtures.providers);
  const sleep = options.sleep ?? realSleep;
  return {
    async searchIhi(request, context: HiCallContext) {
      await imitateLatency(options, sleep, context);
      return findPatient(patientIndexes, request);
    },
    async verifyProvider(request, context: HiCallContext) {
      await imitateLatency(options, sleep, context);
      return verifyProviderRecord(providerIndex, request);
    },
  };
}
