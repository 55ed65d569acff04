// Request and response schemas of the patient routes: the spec's "Patient input" table
// (shared by the IHI precheck and create patient), the partial update body, and the data
// each route returns. Every string has a maxLength and every object a property cap, so no
// body can make validation or storage expensive. Unknown fields are accepted and ignored.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { IHI_RECORD_STATUSES, IHI_SEARCH_PATHS, IHI_STATUSES } from '../hi-service/index.ts';
import { AUSTRALIAN_POSTCODE_PATTERN, AUSTRALIAN_STATES } from '../identifiers/index.ts';
import { SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import { StringEnum } from '../platform/http/schema-types.ts';

export const SEXES = ['M', 'F', 'N', 'I'] as const;
export { AUSTRALIAN_STATES };
export const DVA_CARD_COLORS = ['gold', 'white', 'orange'] as const;
export const INDIGENOUS_TYPES = ['aboriginal', 'torres_strait_islander', 'both', 'neither', 'not_stated'] as const;

/** The update spellings of the vendor's documentation, accepted and stored as the create ones. */
export const DVA_CARD_COLOR_CODES = { G: 'gold', W: 'white', O: 'orange' } as const;
export const INDIGENOUS_TYPE_LABELS = {
  Aboriginal: 'aboriginal',
  'Torres Strait Islander': 'torres_strait_islander',
  Both: 'both',
  Neither: 'neither',
  'Prefer not to say': 'not_stated',
} as const;

/** Longest accepted value of each text field, in characters. */
export const PATIENT_TEXT_LIMITS = {
  partner_patient_id: 150,
  partner_id: 64,
  given_name: 255,
  family_name: 255,
  title: 30,
  ihi_number: 16,
  medicare_card_number: 10,
  medicare_irn: 1,
  dva_file_number: 20,
  concession_pension_number: 50,
  entitlement_number: 50,
  racf_id: 50,
  email: 254,
  phone: 12,
  street_number: 12,
  street_name: 100,
  suburb: 100,
  address_line: 200,
  country: 100,
  international_postcode: 20,
  state_province: 100,
} as const;

/** Most properties an object in a patient body may carry (unknown ones included). */
const MAX_BODY_PROPERTIES = 100;
const MAX_ADDRESS_PROPERTIES = 20;

const text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const calendarDate = (description: string) => Type.String({ format: 'date', maxLength: 10, description });
const L = PATIENT_TEXT_LIMITS;

export const AustralianStreetAddress = Type.Object(
  {
    street_number: text(L.street_number),
    street_name: text(L.street_name),
    suburb: text(L.suburb),
    state: StringEnum(AUSTRALIAN_STATES),
    postcode: Type.String({ pattern: AUSTRALIAN_POSTCODE_PATTERN, maxLength: 4, description: '4 digits.' }),
  },
  { maxProperties: MAX_ADDRESS_PROPERTIES },
);
export type AustralianStreetAddress = Static<typeof AustralianStreetAddress>;

export const InternationalAddress = Type.Object(
  {
    address_line: text(L.address_line),
    country: text(L.country),
    postcode: Type.Optional(text(L.international_postcode)),
    state_province: Type.Optional(text(L.state_province)),
  },
  { maxProperties: MAX_ADDRESS_PROPERTIES },
);
export type InternationalAddress = Static<typeof InternationalAddress>;

// One schema per field, shared by the patient input and the update body.
const FIELDS = {
  partner_patient_id: text(L.partner_patient_id, "The partner's identifier of the patient."),
  partner_id: text(L.partner_id, 'Your partner id (lowercase slug), the one your token was issued to.'),
  given_name: text(L.given_name),
  family_name: text(L.family_name),
  date_of_birth: calendarDate('YYYY-MM-DD; not in the future (Australian time).'),
  sex: StringEnum(SEXES, { description: 'M, F, N or I.' }),
  title: text(L.title),
  ihi_number: text(L.ihi_number, '16-digit IHI (prefix 800360, check digit validated). Omitted: looked up in the HI Service.'),
  medicare_card_number: text(L.medicare_card_number, '10-digit Medicare card number (checksum validated).'),
  medicare_irn: text(L.medicare_irn, 'Individual reference number on the card, 1 to 9.'),
  medicare_valid_to: calendarDate('Card expiry, YYYY-MM-DD.'),
  dva_file_number: text(L.dva_file_number, 'DVA file number, e.g. `NX123456`; any form is accepted, and one the HI Service does not hold is a search path that finds nothing.'),
  dva_card_color: StringEnum(DVA_CARD_COLORS),
  concession_pension_number: text(L.concession_pension_number),
  entitlement_number: text(L.entitlement_number),
  racf_id: text(L.racf_id),
  ctg_eligible: Type.Boolean({ description: 'Closing the Gap eligibility.' }),
  indigenous_type: StringEnum(INDIGENOUS_TYPES),
  is_inpatient: Type.Boolean(),
  email: text(L.email, 'E-mail address.'),
  phone: text(L.phone, 'Australian mobile: 04xxxxxxxx or 05xxxxxxxx, digits only; +61 or 61 prefix accepted.'),
  australian_street_address: AustralianStreetAddress,
  australian_address: Type.Object(AustralianStreetAddress.properties, {
    maxProperties: MAX_ADDRESS_PROPERTIES,
    description: 'Alias of australian_street_address; send one, not both.',
  }),
  international_address: InternationalAddress,
};
const F = FIELDS;
const { Optional } = Type;

export const PatientInput = Type.Object(
  {
    partner_patient_id: F.partner_patient_id,
    partner_id: F.partner_id,
    given_name: F.given_name,
    family_name: F.family_name,
    date_of_birth: F.date_of_birth,
    sex: F.sex,
    ihi_number: Optional(F.ihi_number),
    medicare_card_number: Optional(F.medicare_card_number),
    medicare_irn: Optional(F.medicare_irn),
    medicare_valid_to: Optional(F.medicare_valid_to),
    dva_file_number: Optional(F.dva_file_number),
    dva_card_color: Optional(F.dva_card_color),
    concession_pension_number: Optional(F.concession_pension_number),
    entitlement_number: Optional(F.entitlement_number),
    racf_id: Optional(F.racf_id),
    ctg_eligible: Optional(F.ctg_eligible),
    indigenous_type: Optional(F.indigenous_type),
    email: Optional(F.email),
    phone: Optional(F.phone),
    australian_street_address: Optional(F.australian_street_address),
    australian_address: Optional(F.australian_address),
    international_address: Optional(F.international_address),
  },
  { maxProperties: MAX_BODY_PROPERTIES, description: 'Patient input: the body of the IHI precheck and of create patient.' },
);
/** The validated body, before the address alias is folded in. */
export type PatientInputBody = Static<typeof PatientInput>;

/** A schema that also accepts `null` (on update, null clears the stored value). */
function Nullable<T extends TSchema>(schema: T) {
  const enumValues = schema.enum as unknown[] | undefined;
  return Type.Unsafe<Static<T> | null>({
    ...schema,
    type: [schema.type as string, 'null'],
    ...(enumValues ? { enum: [...enumValues, null] } : {}),
  });
}

export const PatientUpdateInput = Type.Object(
  {
    given_name: Optional(F.given_name),
    family_name: Optional(F.family_name),
    date_of_birth: Optional(F.date_of_birth),
    sex: Optional(F.sex),
    title: Optional(F.title),
    ihi_number: Optional(Nullable(F.ihi_number)),
    medicare_card_number: Optional(Nullable(F.medicare_card_number)),
    medicare_irn: Optional(Nullable(F.medicare_irn)),
    medicare_valid_to: Optional(Nullable(F.medicare_valid_to)),
    dva_file_number: Optional(Nullable(F.dva_file_number)),
    dva_card_color: Optional(Nullable(StringEnum([...DVA_CARD_COLORS, ...keysOf(DVA_CARD_COLOR_CODES)]))),
    concession_pension_number: Optional(F.concession_pension_number),
    entitlement_number: Optional(F.entitlement_number),
    racf_id: Optional(F.racf_id),
    ctg_eligible: Optional(F.ctg_eligible),
    indigenous_type: Optional(StringEnum([...INDIGENOUS_TYPES, ...keysOf(INDIGENOUS_TYPE_LABELS)])),
    is_inpatient: Optional(F.is_inpatient),
    email: Optional(F.email),
    phone: Optional(F.phone),
    australian_street_address: Optional(Nullable(F.australian_street_address)),
    australian_address: Optional(Nullable(F.australian_address)),
    international_address: Optional(Nullable(F.international_address)),
  },
  {
    maxProperties: MAX_BODY_PROPERTIES,
    description: 'Partial update: only the fields sent change; null clears a nullable field.',
  },
);
export type PatientUpdateBody = Static<typeof PatientUpdateInput>;

function keysOf<T extends Record<string, unknown>>(record: T): Array<keyof T & string> {
  return Object.keys(record) as Array<keyof T & string>;
}

export const PatientParams = Type.Object({ organization_id: Type.String(), user_id: Type.String() });
export const PatientIdParams = Type.Object({
  organization_id: Type.String(),
  user_id: Type.String(),
  patient_id: Type.String({ description: 'platform_patient_id (UUID).' }),
});

export const PRECHECK_OUTCOMES = [
  'ihi_found',
  'no_match',
  'insufficient_data',
  'already_exists',
  'organization_not_ready',
  'hi_service_error',
] as const;
export type PrecheckOutcome = (typeof PRECHECK_OUTCOMES)[number];

const SearchPath = StringEnum(IHI_SEARCH_PATHS);
const ihiStatusFields = {
  ihi_status: Type.Optional(StringEnum(IHI_STATUSES)),
  ihi_record_status: Type.Optional(StringEnum(IHI_RECORD_STATUSES)),
};

// No field here can hold an IHI: the serializer sends declared fields only.
export const PrecheckData = Type.Object({
  outcome: StringEnum(PRECHECK_OUTCOMES),
  create_would_succeed: Type.Boolean(),
  ihi_check_passed: Type.Optional(Type.Boolean()),
  searched_path: Type.Optional(SearchPath),
  failed_paths: Type.Optional(Type.Array(SearchPath)),
  ...ihiStatusFields,
  has_ihi: Type.Optional(Type.Boolean()),
  platform_patient_id: Type.Optional(Type.String()),
  search_paths: Type.Optional(Type.Array(Type.Object({ path: SearchPath, missing: Type.Array(Type.String()) }))),
});
export type PrecheckData = Static<typeof PrecheckData>;

export const PatientCreatedData = Type.Object({
  platform_patient_id: Type.String(),
  partner_patient_id: Type.String(),
  has_ihi: Type.Boolean(),
  ...ihiStatusFields,
  url: Type.String({ description: 'The patient in the prescribing portal.' }),
  // The vendor's names, so clients written against its OpenAPI read the answer unchanged.
  external_patient_id: Type.String({ description: 'The same as partner_patient_id (the vendor name).' }),
  parchment_patient_id: Type.String({ description: 'The same as platform_patient_id (the vendor name).' }),
});
export type PatientCreatedData = Static<typeof PatientCreatedData>;

export const PatientUpdatedData = Type.Object({
  patient_id: Type.String({ description: 'The patient id of the path (the same value as platform_patient_id), as the vendor answers.' }),
  platform_patient_id: Type.String(),
  partner_patient_id: Type.String(),
  given_name: Type.String(),
  family_name: Type.String(),
  date_of_birth: Type.String(),
  sex: Type.String(),
  title: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  has_ihi: Type.Boolean(),
  ...ihiStatusFields,
  ihi_reverified: Type.Boolean({ description: 'Whether this update re-ran the IHI verification.' }),
});
export type PatientUpdatedData = Static<typeof PatientUpdatedData>;

const optionalText = Type.Optional(Type.String());

/**
 * Read patient: the fields create accepts, as stored, except the IHI itself (like the precheck,
 * no answer carries it: has_ihi and the statuses say what is held), plus the update-only title
 * and is_inpatient. Fields that are not set are absent.
 */
export const PatientData = Type.Object({
  platform_patient_id: Type.String(),
  partner_patient_id: Type.String(),
  partner_id: Type.String({ description: 'The partner that created the patient.' }),
  given_name: Type.String(),
  family_name: Type.String(),
  date_of_birth: Type.String(),
  sex: Type.String(),
  has_ihi: Type.Boolean(),
  ...ihiStatusFields,
  title: optionalText,
  medicare_card_number: optionalText,
  medicare_irn: optionalText,
  medicare_valid_to: optionalText,
  dva_file_number: optionalText,
  dva_card_color: optionalText,
  concession_pension_number: optionalText,
  entitlement_number: optionalText,
  racf_id: optionalText,
  indigenous_type: optionalText,
  email: optionalText,
  phone: optionalText,
  ctg_eligible: Type.Optional(Type.Boolean()),
  is_inpatient: Type.Optional(Type.Boolean()),
  australian_street_address: Type.Optional(AustralianStreetAddress),
  international_address: Type.Optional(InternationalAddress),
});
export type PatientData = Static<typeof PatientData>;

export const PrecheckResponse = SuccessEnvelopeSchema(PrecheckData);
export const PatientResponse = SuccessEnvelopeSchema(PatientData);
export const PatientDeletedResponse = SuccessEnvelopeSchema(Type.Object({ patient_id: Type.String() }));
export const PatientCreatedResponse = SuccessEnvelopeSchema(PatientCreatedData, 'Patient created');
export const PatientExistingResponse = SuccessEnvelopeSchema(PatientCreatedData, 'The patient already existed');
export const PatientUpdatedResponse = SuccessEnvelopeSchema(PatientUpdatedData);
