// What /v1/token and /validate do: check the five credentials, grant the requested scopes
// the organization allows, and record a partner's validation of an organization.
import type { Kysely } from 'kysely';
import { AUTH_DETAIL, invalidRequest, unauthorized } from '../platform/api-error.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/database-schema.ts';
import { isUuid } from '../platform/ids.ts';
import { secretMatchesHash } from '../platform/secrets.ts';
import { signAccessToken } from './access-tokens.ts';
import { findTokenCredentials, markIntegrationValidated } from './auth-store.ts';
import { canonicalScope, type Scope } from './scopes.ts';
import type { SigningKeys } from './signing-keys.ts';

/** The credential headers of /v1/token, in the order a missing one is reported. */
export const TOKEN_HEADERS = ['x-partner-id', 'x-partner-secret', 'x-organization-id', 'x-organization-secret', 'x-user-id'] as const;

export type TokenHeaders = Record<(typeof TOKEN_HEADERS)[number], string>;

export function readTokenHeaders(headers: Record<string, string | string[] | undefined>): TokenHeaders {
  const values: Partial<TokenHeaders> = {};
  for (const name of TOKEN_HEADERS) {
    const value = headers[name];
    if (typeof value !== 'string' || value.trim() === '') throw invalidRequest(`Missing required header: ${name}`);
    values[name] = value.trim();
  }
  return values as TokenHeaders;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  tokenType: 'Bearer';
  scope: Scope[];
}

export interface TokenContext {
  db: Kysely<Database>;
  keys: SigningKeys;
  clock: Clock;
  tokenTtlSeconds: number;
}

export async function issueAccessToken(ctx: TokenContext, headers: TokenHeaders, requested: string[]): Promise<IssuedToken> {
  const ids = {
    partnerId: headers['x-partner-id'],
    organizationId: headers['x-organization-id'].toLowerCase(),
    userId: headers['x-user-id'].toLowerCase(),
  };
  if (!isUuid(ids.organizationId) || !isUuid(ids.userId)) throw unauthorized(AUTH_DETAIL.credentials);
  const row = await findTokenCredentials(ctx.db, ids);
  const partnerOk = row.partner_secret_hash !== null && secretMatchesHash(headers['x-partner-secret'], row.partner_secret_hash);
  const organizationOk =
    row.organization_secret_hash !== null && secretMatchesHash(headers['x-organization-secret'], row.organization_secret_hash);
  if (!partnerOk || !organizationOk || row.partner_enabled !== 1 || row.user_enabled !== 1) {
    throw unauthorized(AUTH_DETAIL.credentials);
  }
  const allowed = new Set(JSON.parse(row.allowed_scopes ?? '[]') as string[]);
  const granted = [...new Set(requested.map(canonicalScope))].filter((s): s is Scope => s !== undefined && allowed.has(s));
  const accessToken = await signAccessToken(Object.assign({}, ids, { scopes: granted }), ctx.keys, ctx.clock, ctx.tokenTtlSeconds);
  return { accessToken, expiresIn: ctx.tokenTtlSeconds, tokenType: 'Bearer', scope: granted };
}

export async function validateIntegration(
  db: Kysely<Database>,
  clock: Clock,
  principal: { partnerId: string; organizationId: string; validatedAt: string | null },
): Promise<{ validated: true }> {
  // The first validation is what webhooks wait for; later calls confirm it without a write.
  if (principal.validatedAt === null) await markIntegrationValidated(db, principal, clock.now().toISOString());
  return { validated: true };
}
