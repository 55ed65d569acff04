// The partner's own credentials (`x-partner-id`, `x-partner-secret`), for the partner
// self-service routes under /v1/partner/: no organization and no user. Checked as /v1/token
// checks them: ids that cannot be valid refused and counted nowhere, failures counted per
// address and per claimed partner (credential-failures.ts) and audited, secrets compared in
// constant time, a rotated secret accepted during its overlap; a success spends the partner's
// own budget (429 once spent).
import { AUTH_DETAIL, unauthorized } from '../platform/http/api-error.ts';
import { PARTNER_ID_PATTERN } from '../platform/ids.ts';
import { secretMatchesHash } from '../platform/secrets.ts';
import { rateLimited, secretAccepted, type AuthContext } from './auth-service.ts';
import { findPartnerSecret } from './auth-store.ts';
import { noteCredentialRefusal } from './credential-audit.ts';
import { findFailureLockout, recordCredentialFailure, type ClaimedIds } from './credential-failures.ts';

/** Where a partner's own failures are counted: no organization takes part. */
const PARTNER_ONLY = '(partner)';

export const PARTNER_CREDENTIAL_HEADERS = ['x-partner-id', 'x-partner-secret'] as const;

/** The partner the two headers authenticate, or the spec's 401 (429 while locked out or over budget). */
export async function authenticatePartner(ctx: AuthContext, headers: Record<string, string | string[] | undefined>, address: string): Promise<string> {
  const [partnerId, secret] = PARTNER_CREDENTIAL_HEADERS.map((name) => {
    const value = headers[name];
    return typeof value === 'string' ? value.trim() : '';
  }) as [string, string];
  const missing = PARTNER_CREDENTIAL_HEADERS.find((_, i) => [partnerId, secret][i] === '');
  if (missing) throw unauthorized(`Missing required header: ${missing}`);
  const ids: ClaimedIds = { partnerId, organizationId: PARTNER_ONLY, userId: PARTNER_ONLY };
  if (!PARTNER_ID_PATTERN.test(partnerId)) {
    await noteCredentialRefusal(ctx, '/v1/partner', ids, 'ids_malformed');
    throw unauthorized(AUTH_DETAIL.credentials);
  }
  const lockout = await findFailureLockout(ctx.rateLimiter, ids, address);
  if (lockout) {
    await noteCredentialRefusal(ctx, '/v1/partner', ids, 'locked_out');
    throw rateLimited(ctx, 'credential_failures', lockout.retryAfterSeconds);
  }
  const row = await findPartnerSecret(ctx.db, partnerId);
  if (!row?.secret_hash || !secretAccepted(secretMatchesHash, secret, row.secret_hash, row, ctx.clock.now())) {
    await recordCredentialFailure(ctx.rateLimiter, ids, address);
    await noteCredentialRefusal(ctx, '/v1/partner', ids, 'credentials_invalid');
    throw unauthorized(AUTH_DETAIL.credentials);
  }
  const decision = await ctx.rateLimiter.hit(`partner:${partnerId}`);
  if (!decision.allowed) throw rateLimited(ctx, 'budget', decision.retryAfterSeconds);
  return partnerId;
}
