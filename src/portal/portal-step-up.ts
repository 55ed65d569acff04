// The step-up before a Schedule 8 medicine is signed (issue 41 item 3; state-rules.ts rule
// all-s8-step-up): a factor presented within 5 minutes, from the mfa feature's step-up gate
// (issue 39). Asked inside the form's own flow rather than by redirecting (as a route declared
// `factor: 'fresh'` would), so nothing typed, nor the monitoring check, is lost: the form comes
// back saying so, with a link that opens the factor page in a new window; once confirmed there,
// the prescriber sends the form again. (A draft's approval route declares the step-up itself.)
import { stepUpGateOf } from '../mfa/index.ts';
import type { PortalSession } from '../sso/index.ts';
import type { PortalContext } from './portal-service.ts';

export type FreshFactor = { fresh: true } | { fresh: false; problem: string; enrol: boolean };

export async function requireFreshFactor(ctx: PortalContext, session: PortalSession): Promise<FreshFactor> {
  const gate = await stepUpGateOf(ctx.mfa, session);
  if (gate === 'open') return { fresh: true };
  const enrol = gate === 'enrol';
  const problem = enrol
    ? 'This is a Schedule 8 medicine: it is signed with a second factor, and you have none yet. Set one up (the link opens a new window), then create the prescription again.'
    : 'This is a Schedule 8 medicine: confirm your second factor (the link opens a new window; within 5 minutes of creating it), then create the prescription again.';
  return { fresh: false, problem, enrol };
}
