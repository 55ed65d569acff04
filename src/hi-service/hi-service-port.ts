// The one interface every HI Service adapter implements (the sandbox simulator and the SOAP
// adapter). An adapter runs exactly one search path per call; trying the paths in priority
// order and falling back is the precheck's job, not the adapter's. Every call names who asks:
// erx is a Contracted Service Provider, so the organization's HPI-O and the acting user go
// with each message.

export const IHI_SEARCH_PATHS = [
  'ihi_number',
  'medicare',
  'dva',
  'mobile',
  'email',
  'australian-street-address',
  'international-address',
] as const;
export type IhiSearchPath = (typeof IHI_SEARCH_PATHS)[number];

// Stored in patients, so the lists are the columns' (platform/db/stored-values.ts).
export { IHI_RECORD_STATUSES, IHI_STATUSES, type IhiRecordStatus, type IhiStatus } from '../platform/db/stored-values.ts';
import type { IhiRecordStatus, IhiStatus } from '../platform/db/stored-values.ts';

export const HI_SEX_CODES = ['M', 'F', 'N', 'I'] as const;
export type HiSex = (typeof HI_SEX_CODES)[number];

export type HiDemographics = {
  family_name: string;
  given_name: string;
  date_of_birth: string;
  sex: HiSex;
};

export type AustralianStreetAddress = {
  street_number: string;
  street_name: string;
  suburb: string;
  state: string;
  postcode: string;
};

export type InternationalAddress = {
  address_line: string;
  country: string;
  postcode?: string;
  state_province?: string;
};

/** The identifiers a search can carry; only the one named by `path` is searched on. */
export type IhiSearchIdentifiers = {
  ihi_number?: string;
  medicare_card_number?: string;
  medicare_irn?: string;
  dva_file_number?: string;
  phone?: string;
  email?: string;
  australian_street_address?: AustralianStreetAddress;
  international_address?: InternationalAddress;
};

export type IhiSearchRequest = IhiSearchIdentifiers & {
  path: IhiSearchPath;
  demographics: HiDemographics;
};

/** Status fields are present only when the HI Service returned them. */
export type IhiFound = {
  kind: 'found';
  ihi_number: string;
  ihi_status?: IhiStatus;
  ihi_record_status?: IhiRecordStatus;
};

export type IhiSearchResult = IhiFound | { kind: 'no_match' };

export type ProviderVerificationRequest = HiDemographics & { hpii_number: string };

/** `inactive`: the HPI-I exists but is deactivated or retired, so the provider is not verified. */
export type ProviderVerification =
  | { kind: 'verified' }
  | { kind: 'no_match' }
  | { kind: 'no_status' }
  | { kind: 'inactive' };

/**
 * Who asks: the organization's HPI-O (the `hpio` header) and the acting erx user (the `user`
 * header). `signal` aborts the call when the request's budget across search paths runs out; an
 * adapter then throws HiServiceUnreachableError, as for its own per-call timeout.
 */
export interface HiCallContext {
  hpio: string;
  userId: string;
  signal?: AbortSignal;
}

export interface HiServicePort {
  /** Throws HiServiceUnreachableError (or its HiServiceRejectedError) when no answer can be used. */
  searchIhi(request: IhiSearchRequest, context: HiCallContext): Promise<IhiSearchResult>;
  /** Throws HiServiceUnreachableError (or its HiServiceRejectedError) when no answer can be used. */
  verifyProvider(request: ProviderVerificationRequest, context: HiCallContext): Promise<ProviderVerification>;
}

/** The longest name the HI Service takes, in characters: longer ones are cut on the wire only. */
export const HI_WIRE_NAME_LENGTH = 40;

/**
 * A family or given name as it is sent to the HI Service: its first 40 characters (code
 * points). Storage always keeps the whole name; only what goes on the wire is cut.
 */
export function wireName(name: string): string {
  if (name.length <= HI_WIRE_NAME_LENGTH) return name;
  return Array.from(name).slice(0, HI_WIRE_NAME_LENGTH).join('');
}

/**
 * The HI Service could not be reached; callers answer `hi_service_error` (the precheck), 503 (a
 * patient's create or update) or 500 (a provider lookup: nothing was saved).
 */
export class HiServiceUnreachableError extends Error {
  override readonly name: string = 'HiServiceUnreachableError';

  constructor(message = 'HI Service unreachable', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The HI Service answered with an Error or Fatal status (a SOAP fault or a result whose service
 * message has that severity): it was reached, but gave no answer to use. Kept apart from "no
 * match"; a subclass of the unreachable error, so callers answer it as they answer that one.
 * `code` is the service's message code; neither field may carry a demographic or identifier.
 */
export class HiServiceRejectedError extends HiServiceUnreachableError {
  override readonly name = 'HiServiceRejectedError';

  constructor(
    readonly severity: 'Error' | 'Fatal',
    readonly code: string,
    message = `HI Service rejected the request (${severity} ${code})`,
  ) {
    super(message);
  }
}
