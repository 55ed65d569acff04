import { Type, type Static } from '@sinclair/typebox';
import { SuccessEnvelopeSchema, SuccessEnvelopeWithSchema } from '../platform/http/envelope.ts';
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

export const TokenResponse = SuccessEnvelopeWithSchema(
  Type.Object({
    accessToken: Type.String(),
    expiresIn: Type.Integer({ description: 'Seconds until the token expires.' }),
    tokenType: Type.Literal('Bearer'),
    scope: Type.Array(Type.String()),
  }),
  // RFC 6749 section 5.1, beside the envelope, for OAuth client libraries and the vendor's collection.
  {
    access_token: Type.String({ description: 'The same token as data.accessToken (RFC 6749).' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires (RFC 6749).' }),
    scope: Type.String({ description: 'The granted scopes, space-separated (RFC 6749).' }),
  },
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
