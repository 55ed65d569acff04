import { Type, type Static } from '@sinclair/typebox';
import { SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import { StringEnum } from '../platform/http/schema-types.ts';
import type { Mode } from '../config.ts';
import { GRANT_TYPES, requestableScopes, SCOPE_ALIASES } from './scopes.ts';

/** The token request body; the scopes a server in `mode` knows (sandbox-only ones are unknown in production). */
export function tokenRequestSchema(mode: Mode) {
  return Type.Object({
    grantType: StringEnum(GRANT_TYPES, { description: 'Always `client_credentials`.' }),
    scope: Type.Array(StringEnum([...requestableScopes(mode), ...Object.keys(SCOPE_ALIASES)]), {
      minItems: 1,
      maxItems: 32,
      description: 'Scopes requested; the token carries those the organization allows.',
    }),
  });
}
export type TokenRequest = Static<ReturnType<typeof tokenRequestSchema>>;

export const TokenResponse = SuccessEnvelopeSchema(
  Type.Object({
    accessToken: Type.String(),
    expiresIn: Type.Integer({ description: 'Seconds until the token expires.' }),
    tokenType: Type.Literal('Bearer'),
    scope: Type.Array(Type.String()),
  }),
);

export const TokenHeadersSchema = Type.Object({
  'x-partner-id': Type.Optional(Type.String({ description: 'Partner id (slug).' })),
  'x-partner-secret': Type.Optional(Type.String()),
  'x-organization-id': Type.Optional(Type.String({ description: 'Organization id (UUID).' })),
  'x-organization-secret': Type.Optional(Type.String()),
  'x-user-id': Type.Optional(Type.String({ description: 'The acting user (UUID).' })),
});

export const OrganizationParams = Type.Object({ organization_id: Type.String({ maxLength: 64 }) });

export const ValidateResponse = SuccessEnvelopeSchema(Type.Object({ validated: Type.Literal(true) }));

export const JwksResponse = Type.Object({
  keys: Type.Array(Type.Object({}, { additionalProperties: true })),
});
