// The HI sandbox fixture file's shape (DESIGN.md, "HI sandbox fixture file") as TypeBox
// schemas: what hi-fixture-file.ts checks a file against before its identifier checks.
import { Type, type Static } from '@sinclair/typebox';
import { AUSTRALIAN_STATES } from '../identifiers/index.ts';
import { HI_SEX_CODES, IHI_RECORD_STATUSES, IHI_STATUSES } from './hi-service-port.ts';

function unionOfLiterals<Value extends string>(values: readonly Value[]) {
  return Type.Union(values.map((value) => Type.Literal(value)));
}

const Text = Type.String({ minLength: 1 });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const Sex = unionOfLiterals(HI_SEX_CODES);
const strict = { additionalProperties: false } as const;

export const HiFixtureStreetAddress = Type.Object(
  {
    street_number: Text,
    street_name: Text,
    suburb: Text,
    state: unionOfLiterals(AUSTRALIAN_STATES),
    postcode: Type.String({ pattern: '^\\d{4}$' }),
  },
  strict,
);

/** All four parts are required, as the HI Service's international-address search needs them. */
export const HiFixtureInternationalAddress = Type.Object(
  {
    address_line: Text,
    postcode: Text,
    state_province: Text,
    /** ISO 3166-1 alpha-2, or GB-ENG/GB-SCT/GB-WLS/GB-NIR (the HI Service is sent its SACC code). */
    country: Text,
  },
  strict,
);

/**
 * What a record answers instead of its data: `unreachable` as a transport failure, `rejected`
 * as an Error or Fatal answer of the service (fault_severity, default Error; fault_code, default
 * HI_FIXTURE_REJECTED), `no_status` (providers) as a provider found without a status.
 */
export const HI_FIXTURE_PATIENT_FAULTS = ['unreachable', 'rejected'] as const;
export const HI_FIXTURE_PROVIDER_FAULTS = ['unreachable', 'rejected', 'no_status'] as const;
export const HI_FIXTURE_REJECTION_SEVERITIES = ['Error', 'Fatal'] as const;
export const HI_FIXTURE_DEFAULT_REJECTION = { severity: 'Error', code: 'HI_FIXTURE_REJECTED' } as const;
/** A provider's HPI-I status; a deactivated or retired one answers `inactive` (default active). */
export const HPII_STATUSES = ['active', 'deactivated', 'retired'] as const;

const faultDetails = {
  fault_code: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,40}$' })),
  fault_severity: Type.Optional(unionOfLiterals(HI_FIXTURE_REJECTION_SEVERITIES)),
};

/**
 * What the sandbox PDS (src/pds/) does with every submission for this patient: refuse it with
 * this code and message, never answer (a timeout), or be unreachable.
 */
export const PdsFixtureFault = Type.Union([
  Type.Literal('timeout'),
  Type.Literal('unreachable'),
  Type.Object({ refuse: Type.Object({ code: Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,40}$' }), message: Type.String({ minLength: 1, maxLength: 500 }) }, strict) }, strict),
]);
export type PdsFixtureFault = Static<typeof PdsFixtureFault>;
/** Levels and severities of a real-time prescription monitoring answer (src/rtpm/). */
export const RTPM_LEVELS = ['green', 'amber', 'red'] as const;
export const HiFixtureRtpmNotification = Type.Object(
  { severity: unionOfLiterals(RTPM_LEVELS), text: Type.String({ minLength: 1, maxLength: 2000 }), reference: Type.String({ minLength: 1, maxLength: 100 }) },
  strict,
);
/** What an RTPM check of the patient answers in the simulator: a level with its notifications, or "unavailable"; absent: green, none. */
export const HiFixtureRtpm = Type.Union([
  Type.Literal('unavailable'),
  Type.Object({ level: unionOfLiterals(RTPM_LEVELS), notifications: Type.Array(HiFixtureRtpmNotification, { maxItems: 20 }) }, strict),
]);
export type HiFixtureRtpm = Static<typeof HiFixtureRtpm>;

export const HiPatientFixture = Type.Object(
  {
    ihi_number: Text,
    ihi_status: Type.Optional(unionOfLiterals(IHI_STATUSES)),
    ihi_record_status: Type.Optional(unionOfLiterals(IHI_RECORD_STATUSES)),
    family_name: Text,
    given_name: Text,
    date_of_birth: IsoDate,
    sex: Sex,
    medicare_card_number: Type.Optional(Text),
    medicare_irn: Type.Optional(Text),
    dva_file_number: Type.Optional(Text),
    phone: Type.Optional(Text),
    email: Type.Optional(Text),
    australian_street_address: Type.Optional(HiFixtureStreetAddress),
    international_address: Type.Optional(HiFixtureInternationalAddress),
    fault: Type.Optional(unionOfLiterals(HI_FIXTURE_PATIENT_FAULTS)),
    ...faultDetails,
    pds: Type.Optional(PdsFixtureFault),
    /** The real-time prescription monitoring simulator's answer for this patient (src/rtpm/). */
    rtpm: Type.Optional(HiFixtureRtpm),
  },
  strict,
);
export type HiPatientFixture = Static<typeof HiPatientFixture>;

export const HiProviderFixture = Type.Object(
  {
    hpii_number: Text,
    family_name: Text,
    given_name: Text,
    date_of_birth: IsoDate,
    sex: Sex,
    hpii_status: Type.Optional(unionOfLiterals(HPII_STATUSES)),
    fault: Type.Optional(unionOfLiterals(HI_FIXTURE_PROVIDER_FAULTS)),
    ...faultDetails,
  },
  strict,
);
export type HiProviderFixture = Static<typeof HiProviderFixture>;

export const HiFixtureFile = Type.Object(
  {
    patients: Type.Optional(Type.Array(HiPatientFixture)),
    providers: Type.Optional(Type.Array(HiProviderFixture)),
  },
  strict,
);

/** Fixtures in memory: both lists present, searched in order (earlier records win). */
export type HiFixtures = { patients: HiPatientFixture[]; providers: HiProviderFixture[] };
