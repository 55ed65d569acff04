// Request and response schemas of the user routes. Provider fields come from the
// PROVIDER_FIELDS table, so their limits live in one place.
import { Type, type Static, type TOptional, type TSchema, type TString, type TUnsafe } from '@sinclair/typebox';
import { OrganizationParams, ASSIGNABLE_ROLES } from '../auth/index.ts';
import { SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import { StringEnum } from '../platform/http/schema-types.ts';
import { PROVIDER_FIELD_NAMES, PROVIDER_FIELDS, type ProviderDetailsPatch, type ProviderField, type ProviderFieldRule } from './provider-details.ts';

export { OrganizationParams };
export const UserParams = Type.Object({ ...OrganizationParams.properties, user_id: Type.String({ maxLength: 64 }) });

/** Most entries an access_roles array may carry (there are five assignable roles). */
export const MAX_ROLE_ENTRIES = 32;

const NAME_MAX = 100;
const Name = (description: string) => Type.String({ minLength: 1, maxLength: NAME_MAX, pattern: '\\S', description });

/** A provider field's schema: a string (an enum of strings where the field has values). */
type ProviderFieldSchema = TString | TUnsafe<string>;

function providerField(rule: ProviderFieldRule): ProviderFieldSchema {
  if (rule.values) return StringEnum(rule.values, { description: rule.description });
  return Type.String({
    maxLength: rule.maxLength,
    ...(rule.pattern ? { pattern: rule.pattern } : {}),
    // Identity fields are never empty; an empty detail field unsets it.
    ...(rule.identity ? { minLength: 1 } : {}),
    description: rule.description,
  });
}

function providerProperties<N extends ProviderField>(names: readonly N[]): Record<N, TOptional<ProviderFieldSchema>> {
  return Object.fromEntries(names.map((name) => [name, Type.Optional(providerField(PROVIDER_FIELDS[name]))])) as Record<N, TOptional<ProviderFieldSchema>>;
}

// The user bodies are closed (additionalProperties: false): a misspelt field or object (say
// provider_detail) is a 422 naming it, never a 200 that silently changes nothing. Every field
// the vendor's collection and OpenAPI send is declared, the ignored ones included.
const closed = { additionalProperties: false } as const;

export const ProviderDetailsPatchSchema = Type.Object(providerProperties(PROVIDER_FIELD_NAMES), {
  ...closed,
  description:
    'Any subset of the provider fields; only those sent change. hpii_number, given_name, family_name, date_of_birth ' +
    'and sex are verified together with the HI Service; values not sent are taken from the stored record.',
});

/** The two names the provider object goes by: ours (the vendor's docs) and the vendor's Postman collection's. */
export const DETAILS_NAMES = ['provider_details', 'prescriber_details'] as const;
export type DetailsName = (typeof DETAILS_NAMES)[number];

const IGNORED_ON_UPDATE = 'Ignored, as the vendor documents: roles change through PUT .../roles; the e-mail does not change.';

export const UpdateUserBody = Type.Object(
  {
    full_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Set explicitly; otherwise it follows the provider names.' })),
    provider_details: Type.Optional(ProviderDetailsPatchSchema),
    prescriber_details: Type.Optional(
      Type.Object(ProviderDetailsPatchSchema.properties, { ...closed, description: "The vendor collection's name for provider_details; send one of the two, not both." }),
    ),
    access_roles: Type.Optional(Type.Unknown({ description: IGNORED_ON_UPDATE })),
    email: Type.Optional(Type.Unknown({ description: IGNORED_ON_UPDATE })),
  },
  { ...closed, description: 'Only the fields sent change; a field the schema does not name is refused (422).' },
);

type NameField = 'given_name' | 'family_name';
const CREATE_PROVIDER_FIELDS = PROVIDER_FIELD_NAMES.filter((name): name is Exclude<ProviderField, NameField> => name !== 'given_name' && name !== 'family_name');

export const CreateUserBody = Type.Object(
  {
    given_name: Name('Given name.'),
    family_name: Name('Family name.'),
    email: Type.String({ minLength: 1, maxLength: 254, description: 'E-mail, unique across the platform (compared lower-cased).' }),
    access_roles: Type.Optional(
      Type.Array(StringEnum(ASSIGNABLE_ROLES), { maxItems: MAX_ROLE_ENTRIES, description: 'Roles; none means the baseline role member.' }),
    ),
    ...providerProperties(CREATE_PROVIDER_FIELDS),
    partner_user_id: Type.Optional(
      Type.String({ maxLength: 200, description: "The partner's own id for the user: stored, answered as external_user_id, and read back with the user." }),
    ),
  },
  {
    ...closed,
    description:
      'A user. With role provider or rx_queue_manager, date_of_birth, sex, hpii_number and qualifications are required and ' +
      'the HPI-I is verified with the HI Service; provider also needs prescriber_type, and prescriber_number unless the type is T.',
  },
);

/** Update user: the fields that change; `detailsName` is the name the provider object was sent under. */
export interface UserUpdate {
  full_name?: string;
  provider_details?: ProviderDetailsPatch;
  detailsName?: DetailsName;
}

/** Create user: the fields kept. */
export type NewUserRequest = Static<typeof CreateUserBody>;

export const RolesBody = Type.Object({
  access_roles: Type.Optional(
    Type.Array(Type.Unknown(), {
      maxItems: MAX_ROLE_ENTRIES,
      description: `Replaces the roles. Assignable: ${ASSIGNABLE_ROLES.join(', ')}; other entries are dropped.`,
    }),
  ),
});

const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

const ProviderDetailsSchema = Type.Object(
  Object.fromEntries(PROVIDER_FIELD_NAMES.map((name) => [name, PROVIDER_FIELDS[name].identity ? Type.String() : Nullable(Type.String())])),
);

const PartnerUserId = (description: string) => Nullable(Type.String({ description }));

export const UserSchema = Type.Object({
  user_id: Type.String(),
  partner_user_id: PartnerUserId('The partner_user_id create user received; null when none was sent.'),
  external_user_id: PartnerUserId("The same as partner_user_id (the vendor's name)."),
  email: Type.String(),
  full_name: Type.String(),
  access_roles: Type.Array(Type.String()),
  details: Type.Object({
    given_name: Type.String(),
    family_name: Type.String(),
    title: Nullable(Type.String()),
    date_of_birth: Nullable(Type.String()),
    sex: Nullable(Type.String()),
  }),
  provider_details: Type.Optional(
    Type.Union([ProviderDetailsSchema, Type.Null()], {
      description: 'Present when the roles include provider or rx_queue_manager; null when the user has no provider record.',
    }),
  ),
  is_escript_ready: Type.Object({ can_prescribe: Type.Boolean() }),
  mfa_enrolled: Type.Optional(Type.Boolean({ description: 'Whether the user holds an MFA factor (a passkey or an authenticator app) for the prescribing portal. Not a vendor field: an addition of erx.' })),
});

export const UserIdResponse = SuccessEnvelopeSchema(Type.Object({ user_id: Type.String() }));
export const CreatedUserResponse = SuccessEnvelopeSchema(
  Type.Object({
    user_id: Type.String(),
    warning: Type.Optional(Type.String()),
    // The vendor's older answer, beside its newest (user_id), so clients of either read it unchanged.
    external_user_id: PartnerUserId('The partner_user_id sent (the vendor name); null when none was sent.'),
    parchment_user_id: Type.String({ description: 'The same as user_id (the vendor name).' }),
    url: Type.String({ description: 'The new user as an API resource: GET it (scope read:user) to read the user.' }),
  }),
  'code: USER_CREATED, USER_CREATED_PROVIDER_NOT_FOUND or USER_CREATED_PROVIDER_ALREADY_EXISTS',
);
export const UserResponse = SuccessEnvelopeSchema(UserSchema);
export const UserListResponse = SuccessEnvelopeSchema(Type.Array(Type.Object({ user_id: Type.String(), email: Type.String() })));
export const RolesResponse = SuccessEnvelopeSchema(Type.Object({ user_id: Type.String(), access_roles: Type.Array(Type.String()) }));
