// The audit trail's side of the credential checks at /v1/token and /v1/sso: each refusal, with
// the ids it claimed (entryOf bounds them), the endpoint and the refusal's code, never a secret.
//
// Refusals are what a flood is made of, and each entry is a write that waits for the chain's
// lock, which every audited change of the service also takes. So refusals are recorded one by
// one within a budget per instance (REFUSAL_ENTRIES_PER_SECOND); those over it are counted,
// and the count is written as one entry of its own (actor 'system', detail.count) just before
// the next refusal recorded. A flood then costs the trail at most that many writes a second
// per instance whatever its size, and the trail still tells how many refusals there were.
import { currentAuditScope, runInAuditScope, type AuditTrail } from '../audit/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { ClaimedIds } from './credential-failures.ts';

export type CredentialEndpoint = '/v1/token' | '/v1/sso' | '/v1/partner';

/** Why credentials were refused: ids that cannot name anyone, a failed check, an address locked out after failures. */
export type CredentialRefusal = 'ids_malformed' | 'credentials_invalid' | 'locked_out';

/**
 * Refusals recorded one by one per second per instance. Far above what a partner with a wrong
 * secret sends (the failure tiers lock it out after 5 a minute), far below what the trail can
 * write alongside the service's own changes.
 */
export const REFUSAL_ENTRIES_PER_SECOND = 20;

/** The budget's state (one per instance, in the auth context). */
export interface RefusalBudget {
  /** The second (epoch seconds) `used` counts in. */
  second: number;
  used: number;
  /** Refusals over the budget not yet written as a count. */
  unrecorded: number;
}

export function createRefusalBudget(): RefusalBudget {
  return { second: 0, used: 0, unrecorded: 0 };
}

interface RefusalTrail {
  audit: AuditTrail;
  clock: Clock;
  refusalBudget: RefusalBudget;
}

/** Records one refusal at `endpoint` (see the header for the budget); throws when the trail cannot be written. */
export async function noteCredentialRefusal(ctx: RefusalTrail, endpoint: CredentialEndpoint, ids: ClaimedIds, reason: CredentialRefusal): Promise<void> {
  const budget = ctx.refusalBudget;
  const second = Math.floor(ctx.clock.now().getTime() / 1000);
  if (second !== budget.second) {
    budget.second = second;
    budget.used = 0;
  }
  if (budget.used >= REFUSAL_ENTRIES_PER_SECOND) {
    budget.unrecorded += 1;
    return;
  }
  budget.used += 1;
  if (budget.unrecorded > 0) await writeUnrecordedCount(ctx, budget);
  await ctx.audit.noteAccess({ action: 'auth.credential_failure', outcome: 'refused', actor: { kind: 'partner', ...ids }, detail: { endpoint, reason } });
}

/** The count of refusals over the budget, at once and in a scope of its own: it belongs to no one request. */
async function writeUnrecordedCount(ctx: RefusalTrail, budget: RefusalBudget): Promise<void> {
  const count = budget.unrecorded;
  budget.unrecorded = 0;
  try {
    await runInAuditScope({ actor: { kind: 'system' }, hpio: null, requestId: null, clientAddress: null }, async () => {
      await ctx.audit.noteAccess({ action: 'auth.credential_failure', outcome: 'refused', detail: { reason: 'over_budget', count } });
      await ctx.audit.flushPending(currentAuditScope()!);
    });
  } catch (error) {
    // Not written: counted again, for the next refusal recorded.
    budget.unrecorded += count;
    throw error;
  }
}
