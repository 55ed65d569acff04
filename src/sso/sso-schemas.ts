// Request and response schemas of POST /v1/sso.
import { Type, type Static } from '@sinclair/typebox';
import { SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import { DEFAULT_REDIRECT_PATH, REDIRECT_PATH_MAX_LENGTH } from './redirect-path.ts';

export const SsoBody = Type.Object(
  {
    redirect_path: Type.Optional(
      Type.String({
        maxLength: REDIRECT_PATH_MAX_LENGTH,
        description: `Where on the portal to land (default \`${DEFAULT_REDIRECT_PATH}\`): a path, never a scheme or host. reserved_1..3 in its query are echoed in the metadata of every webhook event the session causes (truncated to 30 characters; empty: null); form prefill parameters ride in it too.`,
      }),
    ),
  },
  { maxProperties: 20 },
);
export type SsoBody = Static<typeof SsoBody>;

export const SsoResponse = SuccessEnvelopeSchema(
  Type.Object({
    sso_token: Type.String({ description: 'Opaque and single-use; only redirect_url needs to reach the browser.' }),
    redirect_url: Type.String({ description: '<portal origin>/auth/sso?token=…&redirect=<url-encoded redirect_path>: open it in a tab or as an iframe src.' }),
    expires_in: Type.Integer({ description: 'Seconds the token stays valid (300).' }),
  }),
);
