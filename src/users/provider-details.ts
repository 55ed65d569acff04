// The spec's provider_details table as data, and the rules that read it: the prescriber-type
// dependency, the identity set the HI Service verifies, and how a request's fields combine
// with a stored record. The update-user and create-user schemas, the stored columns and the
// read-user shape are all derived from PROVIDER_FIELDS.
import { isCalendarDate } from '../identifiers/index.ts';
import type { ValidationIssue } from '../platform/http/api-error.ts';
import type { ProviderRecordsTable } from '../platform/db/database-schema.ts';
import type { ProviderRecordStatus } from '../platform/db/stored-values.ts';

/** The spec's sex codes for a provider. */
export const PROVIDER_SEX_CODES = { M: 'Male', F: 'Female', I: 'Indeterminate', N: 'Not-stated' } as const;

/** The spec's prescriber types. */
export const PRESCRIBER_TYPES = {
  M: 'Medical Practitioner',
  E: 'Eye/Optometrist',
  U: 'Nurse',
  F: 'Midwife',
  D: 'Dentist',
  V: 'Veterinarian',
  T: 'Podiatrist',
  C: 'Pharmacist',
} as const;

/** A provider record is active once verified; inactive when its HPI-I passed to another user. */
export const RECORD_ACTIVE: ProviderRecordStatus = 'active';
export const RECORD_INACTIVE: ProviderRecordStatus = 'inactive';

/** The prescriber type that needs no prescriber_number. */
export const TYPE_WITHOUT_PRESCRIBER_NUMBER = 'T';

export interface ProviderFieldRule {
  /** One of the five fields the HI Service verifies; never empty, never unset. */
  identity: boolean;
  maxLength: number;
  pattern?: string;
  values?: readonly string[];
  description: string;
}

// Lengths the spec gives (prescriber_number, provider_number: 10) are the spec's; the others
// are guards against absurd input, sized well above any real value.
const FIELDS = {
  given_name: { identity: true, maxLength: 100, description: "The provider's given name, as the HI Service holds it." },
  family_name: { identity: true, maxLength: 100, description: "The provider's family name, as the HI Service holds it." },
  date_of_birth: { identity: true, maxLength: 10, pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD.' },
  sex: { identity: true, maxLength: 1, values: Object.keys(PROVIDER_SEX_CODES), description: 'M, F, I or N.' },
  hpii_number: { identity: true, maxLength: 32, description: 'HPI-I: 16 digits starting 800361 with a valid check digit.' },
  phone: { identity: false, maxLength: 20, description: 'Phone number.' },
  title: { identity: false, maxLength: 50, description: 'Title, e.g. Dr.' },
  prescriber_number: { identity: false, maxLength: 10, description: 'Required when prescriber_type is given and is not T.' },
  provider_number: { identity: false, maxLength: 10, description: 'Medicare provider number.' },
  prescriber_type: { identity: false, maxLength: 1, values: Object.keys(PRESCRIBER_TYPES), description: 'M, E, U, F, D, V, T or C.' },
  ahpra_number: { identity: false, maxLength: 50, description: 'Ahpra registration number.' },
  qualifications: { identity: false, maxLength: 255, description: 'Required when prescriber_type is given.' },
  hospital_provider_number: { identity: false, maxLength: 50, description: 'Hospital provider number.' },
  erx_entity_id: { identity: false, maxLength: 50, description: 'eRx entity id.' },
} satisfies Record<string, ProviderFieldRule>;

export type ProviderField = keyof typeof FIELDS;
export const PROVIDER_FIELDS: Readonly<Record<ProviderField, ProviderFieldRule>> = FIELDS;
export const PROVIDER_FIELD_NAMES = Object.keys(FIELDS) as ProviderField[];

/** The identity set, in the order the spec lists it. */
export const IDENTITY_FIELDS = ['hpii_number', 'given_name', 'family_name', 'date_of_birth', 'sex'] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];
export type ProviderIdentity = Record<IdentityField, string>;

export const DETAIL_FIELDS = PROVIDER_FIELD_NAMES.filter((name) => !FIELDS[name].identity) as Exclude<ProviderField, IdentityField>[];
export type DetailField = (typeof DETAIL_FIELDS)[number];

/** provider_details as a request sends it: any subset of the fields. */
export type ProviderDetailsPatch = Partial<Record<ProviderField, string>>;

/** provider_details as the single-user read returns it: every field, null when not set. */
export type ProviderDetails = Record<IdentityField, string> & Record<DetailField, string | null>;

/** A provider record as the feature works with it: the HPI-I in clear (sealed in the row: users-store.ts). */
export type ProviderRecordRow = Omit<ProviderRecordsTable, 'hpii_number_encrypted' | 'hpii_number_hash'> & { hpii_number: string };

/** An empty string means "not set" for the fields that may be unset. */
/** A value given as a non-empty string (a body can carry anything where a string belongs). */
function isSet(value: string | null | undefined): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * The fields a prescriber type needs beside itself: qualifications whenever a type is given,
 * prescriber_number unless the type is T. A record without a type needs prescriber_number only.
 */
export function fieldsNeededByType(prescriberType: string | null | undefined): DetailField[] {
  const needed: DetailField[] = [];
  if (isSet(prescriberType)) needed.push('qualifications');
  if (prescriberType !== TYPE_WITHOUT_PRESCRIBER_NUMBER) needed.push('prescriber_number');
  return needed;
}

export function missingTypeFields(fields: Partial<Record<DetailField, string | null>>): DetailField[] {
  return fieldsNeededByType(fields.prescriber_type).filter((name) => !isSet(fields[name]));
}

/** The spec's type dependency, checked on the fields a request sends: one combined entry. */
export function checkPrescriberTypeRule(patch: ProviderDetailsPatch, field = 'provider_details'): ValidationIssue[] {
  if (!isSet(patch.prescriber_type)) return [];
  const missing = missingTypeFields(patch);
  if (missing.length === 0) return [];
  return [
    {
      field,
      message:
        `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required with prescriber_type ${patch.prescriber_type}: ` +
        'qualifications whenever prescriber_type is given, prescriber_number unless prescriber_type is T',
      code: 'VALIDATION_ERROR',
    },
  ];
}

/** Checks a schema cannot express: date_of_birth must be a real calendar date. */
export function checkProviderFormats(fields: { date_of_birth?: unknown }, prefix = 'provider_details.'): ValidationIssue[] {
  const value = fields.date_of_birth;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || isCalendarDate(value)) return [];
  return [{ field: `${prefix}date_of_birth`, message: 'must be a calendar date (YYYY-MM-DD)', code: 'VALIDATION_ERROR' }];
}

/** The identity set: request values first, stored values otherwise; the names missing from both. */
export function resolveIdentity(
  patch: ProviderDetailsPatch,
  stored: ProviderRecordRow | undefined,
): { identity: ProviderIdentity; missing: [] } | { identity: undefined; missing: IdentityField[] } {
  const identity: Partial<ProviderIdentity> = {};
  const missing: IdentityField[] = [];
  for (const name of IDENTITY_FIELDS) {
    const value = patch[name] ?? stored?.[name];
    if (isSet(value)) identity[name] = value;
    else missing.push(name);
  }
  return missing.length === 0 ? { identity: identity as ProviderIdentity, missing: [] } : { identity: undefined, missing };
}

export function requiredIdentityIssues(missing: readonly IdentityField[], prefix = 'provider_details.'): ValidationIssue[] {
  return missing.map((name) => ({
    field: `${prefix}${name}`,
    message: `${prefix}${name} is required: the HI Service verifies hpii_number, given_name, family_name, date_of_birth and sex together`,
    code: 'REQUIRED_FIELD',
  }));
}

/** True when the patch would change the HPI-I or a demographic of the stored record. */
export function changesIdentity(patch: ProviderDetailsPatch, stored: ProviderRecordRow): boolean {
  return IDENTITY_FIELDS.some((name) => patch[name] !== undefined && patch[name] !== stored[name]);
}

/** The detail columns a patch writes: an empty string unsets the field. */
export function detailColumnsOf(patch: ProviderDetailsPatch): Partial<Record<DetailField, string | null>> {
  const columns: Partial<Record<DetailField, string | null>> = {};
  for (const name of DETAIL_FIELDS) {
    const value = patch[name];
    if (value !== undefined) columns[name] = value === '' ? null : value;
  }
  return columns;
}

export function toProviderDetails(row: ProviderRecordRow): ProviderDetails {
  const details = {} as Record<ProviderField, string | null>;
  for (const name of PROVIDER_FIELD_NAMES) details[name] = row[name];
  return details as ProviderDetails;
}

export function fullNameOf(names: { given_name: string; family_name: string }): string {
  return `${names.given_name} ${names.family_name}`;
}
