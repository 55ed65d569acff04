// Issue 40, item 7: a partner's SSO link to the new-prescription form, followed by a queue
// manager (who prepares drafts but cannot prescribe), lands on the draft form for that patient
// with the link's prefill, not on a 403 page; a role with neither capability still gets the 403
// page, a prescriber still gets the form itself, and the link cannot reach another
// organization's patient.
import { describe, expect, it } from 'vitest';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic } from '../prescriptions/prescriptions-given.ts';
import { pathOf, mintSsoUrl, portalClient, sessionCookieOf } from '../portal/portal-given.ts';

const { t, c, other, manager } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const manager = await givenUser(t, c.g.organizationId, ['rx_queue_manager']);
  return { c, other: await givenClinic(t), manager };
});

const formPath = (frame: string, patientId = c.patientId) => `/${frame}/patients/${patientId}/prescriptions`;
const PREFILL = 'quantity=28&patient_instructions=One%20a%20day&reserved_1=visit-9';

/** Opens the SSO link minted for `userId` to `redirectPath`, then requests the page it lands on: that page's answer. */
async function followLink(redirectPath: string, userId: string) {
  const landing = await t.app.inject({ method: 'GET', url: pathOf(await mintSsoUrl(t, c.g, redirectPath, userId)) });
  expect(landing.statusCode).toBe(303);
  expect(landing.headers.location).toBe(redirectPath);
  const cookie = sessionCookieOf(landing)!;
  return { cookie, answer: await t.app.inject({ method: 'GET', url: redirectPath, headers: { cookie } }) };
}

describe("a partner's link to the new-prescription form", () => {
  it('takes a queue manager to the draft form for that patient, in both frames, the prefill and reserved values kept', async () => {
    for (const frame of ['embed', 'dashboard']) {
      const { cookie, answer } = await followLink(`${formPath(frame)}?${PREFILL}`, manager.user_id);
      expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
      expect(answer.headers.location).toBe(`/${frame}/patients/${c.patientId}/prescription-drafts?${PREFILL}`);
      const form = await portalClient(t, cookie).get(String(answer.headers.location));
      expect(form.statusCode, form.body.slice(0, 300)).toBe(200);
      expect(form.body).toContain('Prepare a prescription for approval');
      expect(form.body).toContain('<label for="for_prescriber">For prescriber</label>');
      expect(form.body).toMatch(/id="quantity"[^>]*value="28"/);
      expect(form.body).not.toContain('does not give access to this page');
    }
  });

  it('drops a stale form_id from the link: the draft form issues its own', async () => {
    const { answer } = await followLink(`${formPath('embed')}?form_id=abc&quantity=5`, manager.user_id);
    expect(answer.headers.location).toBe(`/embed/patients/${c.patientId}/prescription-drafts?quantity=5`);
  });

  it('still shows a prescriber the form itself, and still refuses (403 page) a role with neither capability', async () => {
    const prescriber = await followLink(formPath('embed'), c.g.userId);
    // The form first gets its one-time id, on its own address.
    expect(String(prescriber.answer.headers.location)).toMatch(new RegExp(`^${formPath('embed')}\\?form_id=`));
    for (const roles of [['receptionist'], ['rx_reader'], ['member']]) {
      const user = await givenUser(t, c.g.organizationId, roles);
      const { answer } = await followLink(`${formPath('embed')}?${PREFILL}`, user.user_id);
      expect(answer.statusCode, roles.join()).toBe(403);
      expect(answer.body).toContain('does not give access to this page');
      expect(answer.headers.location).toBeUndefined();
    }
  });

  it("leads a queue manager nowhere for another organization's patient or an unknown one (404 on the draft form), and never lets them post the prescribing form", async () => {
    for (const patientId of [other.patientId, '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c']) {
      const { cookie, answer } = await followLink(formPath('embed', patientId), manager.user_id);
      expect(answer.statusCode).toBe(303);
      const form = await portalClient(t, cookie).get(String(answer.headers.location));
      expect(form.statusCode).toBe(404);
      expect(form.body).not.toContain(other.patientId === patientId ? 'Prepare a prescription' : 'For prescriber');
    }
    const { cookie } = await followLink(formPath('embed'), manager.user_id);
    const posted = await t.app.inject({ method: 'POST', url: formPath('embed'), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'medicine=pbs%3A2622B&quantity=20' });
    expect(posted.statusCode).toBe(403);
    expect(await t.deps.database.selectFrom('prescriptions').select('id').where('organization_id', '=', c.g.organizationId).execute()).toEqual([]);
  });
});
