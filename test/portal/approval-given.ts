// Factories for the approval queue's tests: a clinic with a queue manager, portal sessions of
// each, drafts prepared through the draft form, and the decision forms of a draft's page.
import type { LightMyRequestResponse } from 'fastify';
import { givenUser } from '../given.ts';
import type { Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { csrfOf, signIn, type PortalClient } from './portal-given.ts';

export const draftFormPath = (c: Clinic, frame = 'dashboard', patientId = c.patientId) => `/${frame}/patients/${patientId}/prescription-drafts`;
export const queuePath = (frame = 'dashboard') => `/${frame}/prescriptions/approval`;
export const draftPath = (draftId: string, frame = 'dashboard') => `${queuePath(frame)}/${draftId}`;

/** A filled-in draft form: the formulary's amoxicillin, 20, one repeat, by SMS to the patient. */
export const DRAFT_FIELDS = { medicine: 'pbs:2622B', quantity: '20', repeats: '1', send_to: 'patient-sms', patient_instructions: 'One capsule three times a day', intent: 'create' };

/** A session of a new user of the clinic holding `roles`. */
export async function sessionWithRoles(t: TestApp, c: Clinic, roles: string[], redirectPath = '/dashboard'): Promise<PortalClient & { userId: string }> {
  const user = await givenUser(t, c.g.organizationId, roles);
  return { ...(await signIn(t, c.g, redirectPath, user.user_id)), userId: user.user_id };
}

/** The draft id a prepared draft's redirect names; fails the test otherwise. */
export function draftIdOfRedirect(response: LightMyRequestResponse): string {
  const match = /\/prescriptions\/approval\/([0-9a-f-]{36})\?prepared=1$/.exec(String(response.headers.location));
  if (response.statusCode !== 303 || !match) throw new Error(`not a prepared redirect: ${response.statusCode} ${response.headers.location} ${response.body.slice(0, 800)}`);
  return match[1]!;
}

/** Prepares a draft for `prescriberId` through the draft form; returns its id. */
export async function prepareDraftAs(manager: PortalClient, c: Clinic, prescriberId: string, fields: Record<string, string> = {}): Promise<string> {
  return draftIdOfRedirect(await manager.submit(draftFormPath(c), { ...DRAFT_FIELDS, for_prescriber: prescriberId, ...fields }));
}

/** The hidden form_id of the form posting to `action` on a page. */
export function formIdFor(html: string, action: string): string {
  const at = html.indexOf(`action="${action}"`);
  const match = at < 0 ? null : /name="form_id" value="([^"]+)"/.exec(html.slice(at));
  if (!match) throw new Error(`no form posting to ${action} on the page:\n${html.slice(0, 800)}`);
  return match[1]!;
}

/** Loads the draft's page and posts its approval (or decline, with `fields`) form. */
export async function decide(session: PortalClient, draftId: string, decision: 'approve' | 'decline', fields: Record<string, string> = {}, frame = 'dashboard'): Promise<LightMyRequestResponse> {
  const page = await session.get(draftPath(draftId, frame));
  if (page.statusCode !== 200) return page;
  const action = `${draftPath(draftId, frame)}/${decision}`;
  return session.post(action, { _csrf: csrfOf(page.body), form_id: formIdFor(page.body, action), ...fields });
}
