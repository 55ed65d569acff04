// Issue 40, item 7: approving a draft submits the prescription to the PDS like any create. It
// is Active only with the SCID the PDS assigned (one submission, erx's id its key), the
// draft then names that SCID; a PDS refusal makes it Error with the PDS's reason, and no event.
import { describe, expect, it } from 'vitest';
import { isScidFormat } from '../../src/pds/index.ts';
import { isValidScid } from '../../src/pds/pds-scid.ts';
import { useTestApp } from '../given.ts';
import { signInEnrolled } from '../mfa/mfa-given.ts';
import { decide, prepareDraftAs, sessionWithRoles } from '../portal/approval-given.ts';
import { scidOfRedirect } from '../portal/portal-given.ts';
import { givenClinic, outboxEvents, storedPrescription } from '../prescriptions/prescriptions-given.ts';

const { t } = useTestApp({ each: true, env: { ERX_PDS_WAIT_MS: '2000', ERX_PDS_TIMEOUT_MS: '300' } });

async function approvedDraft() {
  const c = await givenClinic(t);
  const manager = await sessionWithRoles(t, c, ['rx_queue_manager']);
  const prescriber = await signInEnrolled(t, c.g, c.g.userId);
  const draftId = await prepareDraftAs(manager, c, c.g.userId);
  t.pds.calls.length = 0;
  return { c, draftId, prescriber, approve: () => decide(prescriber, draftId, 'approve') };
}

const submittedIds = () => t.pds.calls.filter((call) => call.method === 'submit').map((call) => (call.argument as { uniqueId: string }).uniqueId);
const storedDraft = (draftId: string) => t.deps.database.selectFrom('prescription_drafts').select(['status', 'scid']).where('id', '=', draftId).executeTakeFirstOrThrow();

describe('approving a draft', () => {
  it('submits it to the PDS: Active with the SCID the PDS assigned, one submission keyed by erx\'s id, the draft naming that SCID', async () => {
    const { c, draftId, approve } = await approvedDraft();
    const scid = scidOfRedirect(await approve());
    expect(isScidFormat(scid) && !isValidScid(scid)).toBe(true);
    const stored = (await storedPrescription(t, scid))!;
    expect(stored).toMatchObject({ status: 'Active', prescription_type: 'ELECTRONIC' });
    expect(submittedIds()).toEqual([stored.id]);
    expect(await storedDraft(draftId)).toEqual({ status: 'approved', scid });
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created');
    expect(created.map((event) => (event.envelope.data as { scid: string }).scid)).toEqual([scid]);
  });

  it('makes it Error with the PDS reason when the PDS refuses it: no SCID, no event, and the approver is shown why', async () => {
    const { c, prescriber, approve } = await approvedDraft();
    t.pds.failNext('submit', { refuse: { code: 'PATIENT_NOT_ELIGIBLE', message: 'No eligibility for this patient' } });
    const answer = await approve();
    const id = scidOfRedirect(answer);
    const stored = (await storedPrescription(t, id))!;
    expect(stored).toMatchObject({ status: 'Error', scid: null, error_description: expect.stringContaining('No eligibility for this patient (PATIENT_NOT_ELIGIBLE)') });
    expect(submittedIds()).toEqual([stored.id]);
    expect((await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created')).toEqual([]);
    const page = await prescriber.get(String(answer.headers.location));
    expect(page.body).toContain('Not issued:');
    expect(page.body).toContain('No eligibility for this patient');
  });
});
