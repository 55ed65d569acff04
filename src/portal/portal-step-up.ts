// THE STEP-UP SEAM (issue 41 item 3). Writing or approving a prescription of an S8 medicine
// (every state; state-rules.ts rule all-s8-step-up) needs a fresh second factor, within 5
// minutes, from the MFA feature's step-up (issue 39, src/mfa/). src/mfa/ had not landed on main
// when this was written: until it is wired here, this seam answers "fresh" and the gate shows the
// prescriber the notice only. Wiring it: ask src/mfa/'s step-up for the session, and answer
// { fresh: false, problem } with the words that send the prescriber to it.
import type { PortalSession } from '../sso/index.ts';
import type { PortalContext } from './portal-service.ts';

export type FreshFactor = { fresh: true } | { fresh: false; problem: string };

export async function requireFreshFactor(_ctx: PortalContext, _session: PortalSession): Promise<FreshFactor> {
  return { fresh: true };
}
