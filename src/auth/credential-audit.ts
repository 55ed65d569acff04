// The record of each refusal at /v1/token, /v1/sso and /v1/partner: a security alert (the audit
// feature's security-alerts.ts), counted per client address, endpoint, reason and minute,
// kept apart from the 7-year audit chain with its own retention. Refusals are what a flood is
// made of: one entry of the chain each (as they were) let anyone without credentials grow what
// must be kept for seven years (issue 38 item 3). The claimed ids are kept when they could name
// a partner, organization and user, else only as a short hash; never a secret.
import { currentAuditScope, type SecurityAlerts } from '../audit/index.ts';
import { isUuid, PARTNER_ID_PATTERN } from '../platform/ids.ts';
import type { ClaimedIds } from './credential-failures.ts';

export type CredentialEndpoint = '/v1/token' | '/v1/sso' | '/v1/partner';

/** Why credentials were refused: ids that cannot name anyone, a failed check, an address locked out after failures. */
export type CredentialRefusal = 'ids_malformed' | 'credentials_invalid' | 'locked_out';

interface RefusalRecord {
  securityAlerts: SecurityAlerts;
}

/** Records one refusal at `endpoint`, from the request's client address; throws when a new alert cannot be written. */
export async function noteCredentialRefusal(ctx: RefusalRecord, endpoint: CredentialEndpoint, ids: ClaimedIds, reason: CredentialRefusal): Promise<void> {
  const uuid = (value: string) => ({ value, wellFormed: isUuid(value) });
  await ctx.securityAlerts.note({
    endpoint,
    reason,
    clientAddress: currentAuditScope()?.clientAddress ?? null,
    claimed: {
      partnerId: { value: ids.partnerId, wellFormed: PARTNER_ID_PATTERN.test(ids.partnerId) },
      // /v1/partner claims no organization or user.
      organizationId: endpoint === '/v1/partner' ? { value: null, wellFormed: true } : uuid(ids.organizationId),
      userId: endpoint === '/v1/partner' ? { value: null, wellFormed: true } : uuid(ids.userId),
    },
  });
}
