// Failed credential checks at /v1/token and /v1/sso, counted apart from the (partner,
// organization) budget, which only a caller who passed the check spends: so nobody who merely
// knows a partner id and an organization id (they travel in links and webhooks) can lock
// that pair out. Failures count per client address, across pairs, and per claimed pair from
// one address, in tiers whose windows grow (a minute, a quarter of an hour, an hour): each
// tier spent refuses that address's attempts for the pair until its window ends. Ids that
// cannot be valid are refused before any of this and count nowhere, so junk costs no memory.
import { isUuid, PARTNER_ID_PATTERN } from '../platform/ids.ts';
import type { RateLimiter, RateLimitDecision, RateLimitRule } from '../platform/http/rate-limiter.ts';

/** Failed checks one client address may make in a minute, whatever pairs it names. */
export const FAILURES_PER_ADDRESS: RateLimitRule = { max: 30, windowSeconds: 60 };

/** Failed checks of one claimed pair from one address: each tier spent locks it longer. */
export const FAILURES_PER_PAIR_TIERS: readonly RateLimitRule[] = [
  { max: 5, windowSeconds: 60 },
  { max: 10, windowSeconds: 15 * 60 },
  { max: 20, windowSeconds: 60 * 60 },
];

/** The claimed ids of a credential attempt, as sent (organization and user ids lower-cased). */
export interface ClaimedIds {
  partnerId: string;
  organizationId: string;
  userId: string;
}

/** Whether the ids could name a partner, organization and user at all (slug, UUID, UUID). */
export function claimedIdsCanBeValid(ids: ClaimedIds): boolean {
  return PARTNER_ID_PATTERN.test(ids.partnerId) && isUuid(ids.organizationId) && isUuid(ids.userId);
}

interface CountedKey {
  key: string;
  rule: RateLimitRule;
}

function countedKeys(ids: ClaimedIds, address: string): CountedKey[] {
  const pair = `auth-fail:pair:${ids.partnerId}:${ids.organizationId}@${address}`;
  return [
    { key: `auth-fail:address:${address}`, rule: FAILURES_PER_ADDRESS },
    ...FAILURES_PER_PAIR_TIERS.map((rule) => ({ key: `${pair}:${rule.windowSeconds}`, rule })),
  ];
}

/** The longest wait among refusing decisions, or undefined when none refuses. */
function longestRefusal(decisions: RateLimitDecision[]): RateLimitDecision | undefined {
  const refusing = decisions.filter((d) => !d.allowed);
  if (refusing.length === 0) return undefined;
  return refusing.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
}

/** Whether this address may attempt these ids now; a refusal says how long to wait. */
export async function findFailureLockout(limiter: RateLimiter, ids: ClaimedIds, address: string): Promise<RateLimitDecision | undefined> {
  return longestRefusal(await Promise.all(countedKeys(ids, address).map(({ key, rule }) => limiter.peek(key, rule))));
}

/** Counts one failed check against the address and the claimed pair. */
export async function recordCredentialFailure(limiter: RateLimiter, ids: ClaimedIds, address: string): Promise<void> {
  await Promise.all(countedKeys(ids, address).map(({ key, rule }) => limiter.hit(key, rule)));
}
