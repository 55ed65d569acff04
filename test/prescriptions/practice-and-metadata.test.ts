// Issue 40, item 6: every script states its legal metadata (the conformance id, erx's own
// unique id, the prescriber's HPI-I and the HPI-O), on the token page and its print view as in
// the read API; and an organization whose practice address and phone are not recorded has no
// prescription written by any entry point (test helper, portal form, draft approval), each
// refusal saying what is missing, as the portal's patient page says beforehand.
import { describe, expect, it } from 'vitest';
import { setOrganizationPractice } from '../../src/onboarding/index.ts';
import { DEMO_HPIO, DEMO_PRACTICE, DEMO_PRESCRIBER_DETAILS } from '../../src/onboarding/sandbox-seed.ts';
import { useTestApp } from '../given.ts';
import { decide, prepareDraftAs, sessionWithRoles } from '../portal/approval-given.ts';
import { signInEnrolled } from '../mfa/mfa-given.ts';
import { signIn } from '../portal/portal-given.ts';
import { loadPrescriptionLegalContent } from '../../src/prescriptions/prescription-legal-content.ts';
import { givenClinic, givenPrescription, prescriptionsClient, storedPrescription } from './prescriptions-given.ts';

const MISSING = /practice address and phone are not complete \(missing: street address, suburb, state, postcode, phone number\)\. A prescription states them, so none can be written until the platform operator records them \(erx org set-practice\)/;

const { t, c, bare } = useTestApp({ env: { ERX_CONFORMANCE_ID: 'ADHA-CID-TEST-7' } }, async (t) => ({ c: await givenClinic(t), bare: await givenClinic(t, { practice: null }) }));

const tokenPathOf = (url: string) => new URL(url).pathname;
const prescriptionCount = async (organizationId: string) => (await t.deps.database.selectFrom('prescriptions').select('id').where('organization_id', '=', organizationId).execute()).length;

describe('the legal metadata of a script', () => {
  it('is stated on the token page and its print view, as the read API gives it', async () => {
    const prescription = await givenPrescription(t, c);
    const stored = (await storedPrescription(t, prescription.scid))!;
    expect(prescription.legal_metadata).toEqual({ conformance_id: 'ADHA-CID-TEST-7', prescription_id: stored.id, prescriber_hpii: DEMO_PRESCRIBER_DETAILS.hpii_number, organization_hpio: DEMO_HPIO });
    for (const path of [tokenPathOf(prescription.url), `${tokenPathOf(prescription.url)}/print`]) {
      const page = await t.app.inject({ method: 'GET', url: path });
      expect(page.statusCode, path).toBe(200);
      for (const words of ['<dt>Conformance ID</dt><dd>ADHA-CID-TEST-7</dd>', `<dt>Prescription ID</dt><dd>${stored.id}</dd>`, `<dt>Prescriber HPI-I</dt><dd>${DEMO_PRESCRIBER_DETAILS.hpii_number}</dd>`, `<dt>Organization HPI-O</dt><dd>${DEMO_HPIO}</dd>`]) {
        expect(page.body, path).toContain(words);
      }
    }
  });

  it('is copied into the prescription when it is written: a later practice move leaves it as written', async () => {
    const prescription = await givenPrescription(t, c);
    await setOrganizationPractice(t.features.onboarding, c.g.organizationId, { ...DEMO_PRACTICE, street: '99 New Road' });
    const stored = (await storedPrescription(t, prescription.scid))!;
    expect(stored).toMatchObject({ practice_street: DEMO_PRACTICE.street, conformance_id: 'ADHA-CID-TEST-7', prescriber_number: DEMO_PRESCRIBER_DETAILS.prescriber_number });
    // The legal content a PDS submission sends, loaded by erx's unique id alone.
    const content = await loadPrescriptionLegalContent(t.features.prescriptions, c.g.organizationId, stored.id);
    expect(content).toMatchObject({
      uniqueId: stored.id, conformanceId: 'ADHA-CID-TEST-7', scid: prescription.scid, prescriptionType: 'ELECTRONIC',
      prescriber: { hpii: DEMO_PRESCRIBER_DETAILS.hpii_number, prescriberNumber: DEMO_PRESCRIBER_DETAILS.prescriber_number },
      organization: { hpio: DEMO_HPIO, street: DEMO_PRACTICE.street, state: 'VIC' },
      patient: { name: 'Jessica Wood', medicareNumber: expect.stringMatching(/^\d{10}$/) },
    });
    expect(await loadPrescriptionLegalContent(t.features.prescriptions, bare.g.organizationId, stored.id)).toBeUndefined();
    await setOrganizationPractice(t.features.onboarding, c.g.organizationId, DEMO_PRACTICE);
  });

  it('a paper prescription has no token page: its derived address opens nothing', async () => {
    const paper = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    expect(paper.url).toBeUndefined();
    const electronic = await givenPrescription(t, c);
    // Turned paper behind erx's back, the same row's token page is gone.
    await t.deps.database.updateTable('prescriptions').set({ prescription_type: 'PAPER' }).where('scid', '=', electronic.scid).execute();
    expect((await t.app.inject({ method: 'GET', url: tokenPathOf(electronic.url) })).statusCode).toBe(404);
  });
});

describe('an organization without its practice address and phone', () => {
  it('has its patient page say what is missing before a prescription can be written', async () => {
    const session = await signIn(t, bare.g);
    const page = await session.get(`/dashboard/patients/${bare.patientId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body.replace(/&#39;/g, "'")).toMatch(MISSING);
    const complete = await (await signIn(t, c.g)).get(`/dashboard/patients/${c.patientId}`);
    expect(complete.body).not.toContain('No prescription can be written yet');
  });

  it('is refused by the test helper (409) with that message, nothing written, and the refusal audited', async () => {
    const response = await prescriptionsClient(t, bare).prescribe();
    expect(response.statusCode).toBe(409);
    expect(response.json().error.detail).toMatch(MISSING);
    expect(await prescriptionCount(bare.g.organizationId)).toBe(0);
    const refused = await t.deps.database.selectFrom('audit_entries').select(['action', 'outcome']).where('organization_id', '=', bare.g.organizationId).where('action', '=', 'prescription.create').execute();
    expect(refused).toEqual([{ action: 'prescription.create', outcome: 'refused' }]);
  });

  it("is refused by the portal's form and by a draft's approval, each showing the message", async () => {
    // Approving is a step-up: the prescriber enrolled a factor in this session.
    const session = await signInEnrolled(t, bare.g, bare.g.userId);
    const form = `/dashboard/patients/${bare.patientId}/prescriptions`;
    const created = await session.submit(form, { medicine: 'pbs:2622B', quantity: '20', repeats: '1', send_to: 'patient-sms', intent: 'create' });
    expect(created.statusCode).toBe(409);
    expect(created.body.replace(/&#39;/g, "'")).toMatch(MISSING);
    const manager = await sessionWithRoles(t, bare, ['rx_queue_manager']);
    const draftId = await prepareDraftAs(manager, bare, bare.g.userId);
    const approved = await decide(session, draftId, 'approve');
    expect(approved.statusCode).toBe(409);
    expect(approved.body.replace(/&#39;/g, "'")).toMatch(MISSING);
    expect(await prescriptionCount(bare.g.organizationId)).toBe(0);
  });
});
