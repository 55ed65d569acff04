// Racing decisions on one draft, through HTTP on either database: of two approvals, or an
// approval and a decline, sent at once, exactly one changes the draft and the other is told
// what decided it (the decision is a conditional change of the waiting draft).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { givenClinic, outboxEvents, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { csrfOf, signIn, type PortalClient } from './portal-given.ts';
import { draftPath, formIdFor, prepareDraftAs, sessionWithRoles } from './approval-given.ts';
import { signInEnrolled } from '../mfa/mfa-given.ts';

let t: TestApp;
let c: Clinic;
let manager: PortalClient;
let prescriber: PortalClient;

useTestApp({ each: true }, async (app) => {
  t = app;
  c = await givenClinic(t);
  manager = await sessionWithRoles(t, c, ['rx_queue_manager']);
  // Approving is a step-up: the prescriber enrolled a factor in this session.
  prescriber = await signInEnrolled(t, c.g, c.g.userId);
  return {};
});

const storedDraft = (draftId: string) => t.deps.database.selectFrom('prescription_drafts').selectAll().where('id', '=', draftId).executeTakeFirstOrThrow();
const prescriptionsOf = (organizationId: string) => t.deps.database.selectFrom('prescriptions').select('scid').where('organization_id', '=', organizationId).execute();

describe('racing decisions', () => {
  it('of two approvals sent at once, one creates the prescription and the other is told it was already approved', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const pages = [await prescriber.get(draftPath(draftId)), await prescriber.get(draftPath(draftId))];
    const action = `${draftPath(draftId)}/approve`;
    const posts = pages.map((page) => ({ _csrf: csrfOf(page.body), form_id: formIdFor(page.body, action) }));
    const answers = await Promise.all(posts.map((fields) => prescriber.post(action, fields)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([303, 409]);
    // Named by its SCID once the PDS took it, by erx's id while the submission is still pending.
    expect(answers.find((a) => a.statusCode === 409)!.body).toMatch(/This draft was already approved: it is prescription (?:[A-Z0-9]{18}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\./);
    expect(await prescriptionsOf(c.g.organizationId)).toHaveLength(1);
    expect((await outboxEvents(t, c.g.organizationId)).map((e) => e.event_type)).toEqual(['prescription.created']);
  });

  it('of an approval and a decline sent at once, one wins and the other is told which', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const page = await prescriber.get(draftPath(draftId));
    const approve = `${draftPath(draftId)}/approve`;
    const decline = `${draftPath(draftId)}/decline`;
    const csrf = csrfOf(page.body);
    const [approved, declined] = await Promise.all([
      prescriber.post(approve, { _csrf: csrf, form_id: formIdFor(page.body, approve) }),
      prescriber.post(decline, { _csrf: csrf, form_id: formIdFor(page.body, decline), reason: 'Changed my mind' }),
    ]);
    expect([approved.statusCode, declined.statusCode].sort()).toEqual([303, 409]);
    const draft = await storedDraft(draftId);
    if (draft.status === 'approved') {
      expect(declined.body).toContain('This draft was already approved');
      expect(await prescriptionsOf(c.g.organizationId)).toHaveLength(1);
    } else {
      expect(draft.status).toBe('declined');
      expect(approved.body).toContain('This draft was already declined');
      expect(await prescriptionsOf(c.g.organizationId)).toEqual([]);
      expect(await outboxEvents(t, c.g.organizationId)).toEqual([]);
    }
  });
});
