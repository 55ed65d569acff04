// The approval queue through HTTP: a queue manager prepares a prescription on the
// new-prescription form for a named prescriber; it waits (no SCID, no event, no prescription)
// in both queues; the prescriber approves it (created through the prescriptions service: the
// event, the SCID, the audit entries) or declines it with a reason the queue manager is shown.
import { describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { useTestApp } from '../given.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { givenClinic, givenSecondPrescriber, outboxEvents, storedPrescription, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn, type PortalClient } from './portal-given.ts';
import { signInEnrolled } from '../mfa/mfa-given.ts';
import { decide, draftFormPath, draftPath, DRAFT_FIELDS, formIdFor, prepareDraftAs, queuePath, sessionWithRoles } from './approval-given.ts';

let t: TestApp;
let c: Clinic;
let manager: PortalClient & { userId: string };
let prescriber: PortalClient;

useTestApp({ each: true }, async (app) => {
  t = app;
  c = await givenClinic(t);
  manager = await sessionWithRoles(t, c, ['rx_queue_manager']);
  // Approving is a step-up: the prescriber enrolled a factor (TOTP) in this session.
  prescriber = await signInEnrolled(t, c.g, c.g.userId, '/dashboard?reserved_1=visit-7');
  return {};
});

const storedDraft = (draftId: string) => t.deps.database.selectFrom('prescription_drafts').selectAll().where('id', '=', draftId).executeTakeFirstOrThrow();
const draftsOf = (organizationId: string) => t.deps.database.selectFrom('prescription_drafts').select('id').where('organization_id', '=', organizationId).execute();
const prescriptionsOf = (organizationId: string) => t.deps.database.selectFrom('prescriptions').select(['scid', 'prescriber_user_id', 'quantity']).where('organization_id', '=', organizationId).execute();
const tokenMessagesOf = (organizationId: string) => t.deps.database.selectFrom('token_messages').select(['prescription_id', 'channel', 'prescriber_name']).where('organization_id', '=', organizationId).execute();
const auditActions = async () => (await t.deps.database.selectFrom('audit_entries').select(['action', 'outcome']).where('organization_id', '=', c.g.organizationId).orderBy('seq').execute()).map((e) => e.action);

describe('preparing a draft', () => {
  it("offers the queue manager the same form with a choice of the organization's prescribers who can prescribe, and nobody else", async () => {
    const notReady = await sessionWithRoles(t, c, ['provider']);
    const page = await manager.get(draftFormPath(c));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<label for="for_prescriber">For prescriber</label>');
    expect(page.body).toContain(`value="${c.g.userId}"`);
    expect(page.body).not.toContain(`value="${notReady.userId}"`);
    expect(page.body).not.toContain(`value="${manager.userId}"`);
    expect(page.body).toContain('>Prepare for approval</button>');
    expect(page.body).not.toContain('You cannot prescribe yet');
    expect(page.body).toContain('<label for="medicine">Medicine</label>');
    const prefilled = await manager.get(`${draftFormPath(c)}?for_prescriber=${c.g.userId}&quantity=28`);
    expect(prefilled.body).toContain(`<option value="${c.g.userId}" selected>`);
    expect(prefilled.body).toMatch(/id="quantity"[^>]*value="28"/);
  });

  it('stores a waiting draft: no SCID, no prescription, no event; one audit entry', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const draft = await storedDraft(draftId);
    expect(draft).toMatchObject({ status: 'waiting', scid: null, prescriber_user_id: c.g.userId, prepared_by_user_id: manager.userId, patient_id: c.patientId, medicine: 'Amoxicillin 500 mg (as trihydrate) Capsule' });
    expect(JSON.parse(decryptSecret(draft.body_encrypted, t.deps.secretKey))).toMatchObject({ item_name: 'Amoxicillin', quantity: '20', repeats: '1', delivery: { method: 'SMS', recipient_type: 'PATIENT' } });
    expect(await prescriptionsOf(c.g.organizationId)).toEqual([]);
    expect((await outboxEvents(t, c.g.organizationId)).map((e) => e.event_type)).toEqual([]);
    expect(await tokenMessagesOf(c.g.organizationId)).toEqual([]);
    expect((await auditActions()).filter((a) => a === 'prescription.draft_prepare')).toHaveLength(1);
    const shown = await manager.get(`${draftPath(draftId)}?prepared=1`);
    expect(shown.body).toContain('Draft prepared: it waits for its prescriber.');
    expect(shown.body).toContain('waiting');
    expect(shown.body).not.toContain('Approve and create prescription');
  });

  it('refuses a missing or unknown prescriber, a prescriber who cannot prescribe and a disabled one (422), storing nothing', async () => {
    const notReady = await sessionWithRoles(t, c, ['provider']);
    const disabled = await givenSecondPrescriber(t, c);
    expect((await t.app.inject({ method: 'PUT', url: `/v1/organizations/${c.g.organizationId}/users/${disabled}/disable`, headers: c.owner })).statusCode).toBe(200);
    const cases: Array<[string, RegExp]> = [
      ['', /Choose the prescriber who will approve it\./],
      ['3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c', /The prescriber is not a prescriber of your organization who can prescribe now\./],
      [notReady.userId, /The prescriber is not a prescriber/],
      [disabled, /The prescriber is not a prescriber/],
      [manager.userId, /The prescriber is not a prescriber/],
    ];
    for (const [forPrescriber, message] of cases) {
      const refused = await manager.submit(draftFormPath(c), { ...DRAFT_FIELDS, for_prescriber: forPrescriber });
      expect(refused.statusCode, forPrescriber).toBe(422);
      expect(refused.body).toMatch(message);
      expect(refused.body).toContain('aria-invalid="true"');
    }
    const badFields = await manager.submit(draftFormPath(c), { ...DRAFT_FIELDS, quantity: '0', for_prescriber: c.g.userId });
    expect(badFields.statusCode).toBe(422);
    expect(badFields.body).toContain('id="quantity-error"');
    expect(await draftsOf(c.g.organizationId)).toEqual([]);
  });

  it('refuses a receptionist and an rx_reader the draft form (403), and a prescriber too: prescribers write their own', async () => {
    for (const roles of [['receptionist'], ['rx_reader'], ['member']]) {
      const session = await sessionWithRoles(t, c, roles);
      expect((await session.get(draftFormPath(c))).statusCode).toBe(403);
      const csrf = csrfOf((await session.get('/dashboard')).body);
      const posted = await session.post(draftFormPath(c), { _csrf: csrf, ...DRAFT_FIELDS, for_prescriber: c.g.userId });
      expect(posted.statusCode).toBe(403);
    }
    expect((await prescriber.get(draftFormPath(c))).statusCode).toBe(403);
    expect(await draftsOf(c.g.organizationId)).toEqual([]);
  });

  it("answers another organization's patient with a 404 page", async () => {
    const other = await givenClinic(t);
    expect((await manager.get(draftFormPath(other))).statusCode).toBe(404);
  });

  it('prepares once per form: a second post of the same form lands on the same draft', async () => {
    const page = await manager.get(draftFormPath(c));
    const fields = { _csrf: csrfOf(page.body), ...formIdFieldOf(page.body), ...DRAFT_FIELDS, for_prescriber: c.g.userId };
    const [first, second] = [await manager.post(draftFormPath(c), fields), await manager.post(draftFormPath(c), fields)];
    expect(second.headers.location).toBe(first.headers.location);
    expect(await draftsOf(c.g.organizationId)).toHaveLength(1);
  });
});

describe('the queue', () => {
  it('shows the queue manager their drafts and the prescriber the drafts named to them, in both frames; nobody else', async () => {
    const second = await givenSecondPrescriber(t, c);
    const mine = await prepareDraftAs(manager, c, c.g.userId);
    const theirs = await prepareDraftAs(manager, c, second);
    for (const frame of ['dashboard', 'embed']) {
      const managerQueue = await manager.get(queuePath(frame));
      expect(managerQueue.statusCode).toBe(200);
      expect(managerQueue.body).toContain(draftPath(mine, frame));
      expect(managerQueue.body).toContain(draftPath(theirs, frame));
      const prescriberQueue = await prescriber.get(queuePath(frame));
      expect(prescriberQueue.statusCode).toBe(200);
      expect(prescriberQueue.body).toContain(draftPath(mine, frame));
      expect(prescriberQueue.body).not.toContain(theirs);
    }
    const embedded = await manager.get(queuePath('embed'));
    expect(embedded.body).not.toContain('Skip to content');
    expect(embedded.headers['x-frame-options']).toBeUndefined();
    expect((await manager.get(queuePath())).headers['x-frame-options']).toBe('DENY');
    const anotherManager = await sessionWithRoles(t, c, ['rx_queue_manager']);
    expect((await anotherManager.get(queuePath())).body).not.toContain(mine);
    expect((await anotherManager.get(draftPath(mine))).statusCode).toBe(404);
    for (const roles of [['receptionist'], ['rx_reader'], ['owner', 'admin']]) {
      expect((await (await sessionWithRoles(t, c, roles)).get(queuePath())).statusCode).toBe(403);
    }
  });

  it('links the dashboard to the queue for a queue manager, and the patient page to the draft form', async () => {
    expect((await manager.get('/dashboard')).body).toContain('href="/dashboard/prescriptions/approval"');
    const patient = await manager.get(`/dashboard/patients/${c.patientId}`);
    expect(patient.body).toContain(`href="/dashboard/patients/${c.patientId}/prescription-drafts"`);
    expect(patient.body).not.toContain('>New prescription</a>');
  });
});

describe('approving and declining', () => {
  it('approval creates the prescription through the prescriptions service: SCID, prescription.created with the approver\'s reserved values, audit entries', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const approved = await decide(prescriber, draftId, 'approve');
    const scid = scidOfRedirect(approved);
    expect(await storedPrescription(t, scid)).toMatchObject({ status: 'Active', prescriber_user_id: c.g.userId, item_name: 'Amoxicillin', quantity: '20', patient_instructions: 'One capsule three times a day' });
    expect(await storedDraft(draftId)).toMatchObject({ status: 'approved', scid, decided_by_user_id: c.g.userId });
    const events = await outboxEvents(t, c.g.organizationId);
    expect(events.map((e) => e.event_type)).toEqual(['prescription.created']);
    expect(events[0]!.envelope).toMatchObject({ data: { scid, user_id: c.g.userId, patient_id: c.patientId }, metadata: { reserved_1: 'visit-7' } });
    // The token goes out only now, as for any create: one message to the draft's delivery, after this commit.
    const prescriptionId = (await t.deps.database.selectFrom('prescriptions').select('id').where('scid', '=', scid).executeTakeFirstOrThrow()).id;
    expect(await tokenMessagesOf(c.g.organizationId)).toEqual([{ prescription_id: prescriptionId, channel: 'SMS', prescriber_name: expect.stringMatching(/\S/) }]);
    const actions = await auditActions();
    expect(actions.filter((a) => a === 'prescription.draft_approve')).toHaveLength(1);
    expect(actions.filter((a) => a === 'prescription.create')).toHaveLength(1);
    const seen = await manager.get(draftPath(draftId));
    expect(seen.body).toContain('approved');
    expect(seen.body).toContain(scid);
  });

  it('approves once: a second approval form is refused with what happened (409); the same form again lands on the prescription', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const action = `${draftPath(draftId)}/approve`;
    const [page, laterPage] = [await prescriber.get(draftPath(draftId)), await prescriber.get(draftPath(draftId))];
    const fields = { _csrf: csrfOf(page.body), form_id: formIdFor(page.body, action) };
    const first = await prescriber.post(action, fields);
    const scid = scidOfRedirect(first);
    const again = await prescriber.post(action, fields);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(first.headers.location);
    const refused = await prescriber.post(action, { _csrf: csrfOf(laterPage.body), form_id: formIdFor(laterPage.body, action) });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain(`This draft was already approved: it is prescription ${scid}.`);
    expect((await prescriber.get(draftPath(draftId))).body).not.toContain('Approve and create prescription');
    expect(await prescriptionsOf(c.g.organizationId)).toHaveLength(1);
  });

  it('declines with a reason (required) that the queue manager is shown; a declined draft cannot be approved', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const missing = await decide(prescriber, draftId, 'decline', { reason: '   ' });
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain('Enter the reason for declining: the queue manager is shown it.');
    expect((await storedDraft(draftId)).status).toBe('waiting');
    const declined = await decide(prescriber, draftId, 'decline', { reason: 'Dose too high for this patient' });
    expect(declined.statusCode).toBe(303);
    expect(declined.headers.location).toBe(`${draftPath(draftId)}?declined=1`);
    expect(await storedDraft(draftId)).toMatchObject({ status: 'declined', decline_reason: 'Dose too high for this patient', scid: null });
    expect((await manager.get(queuePath())).body).toContain('declined: Dose too high for this patient');
    expect((await manager.get(draftPath(draftId))).body).toContain('Dose too high for this patient');
    expect(await prescriptionsOf(c.g.organizationId)).toEqual([]);
    expect((await outboxEvents(t, c.g.organizationId)).map((e) => e.event_type)).toEqual([]);
    const entries = await t.deps.database.selectFrom('audit_entries').select(['action', 'detail', 'patient_id']).where('organization_id', '=', c.g.organizationId).where('action', 'like', 'prescription.draft_%').orderBy('seq').execute();
    const changes = entries.map((e) => e.action).filter((action) => !/_(read|list)$/.test(action));
    expect(changes).toEqual(['prescription.draft_prepare', 'prescription.draft_decline']);
    expect(entries.some((e) => e.action === 'prescription.draft_list')).toBe(true);
    expect(entries.every((e) => e.patient_id === c.patientId || e.action === 'prescription.draft_list')).toBe(true);
    // The reason is free text: the entry names the draft, never its words.
    expect(JSON.stringify(entries)).not.toContain('Dose too high');
    // The decision forms are gone; an old approval form is refused.
    const csrf = csrfOf((await prescriber.get(draftPath(draftId))).body);
    expect((await prescriber.get(draftPath(draftId))).body).not.toContain('Approve and create prescription');
    const stale = await prescriber.post(`${draftPath(draftId)}/approve`, { _csrf: csrf, form_id: 'forged.form' });
    expect(stale.statusCode).toBe(409);
  });
});

describe('custom drugs in a draft', () => {
  it("judges a custom drug as the named prescriber's: their own drug is accepted, the queue manager's own is not", async () => {
    const prescribersDrug = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Cefalexin' }));
    const managersDrug = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Doxycycline' }), manager.userId);
    const draftId = await prepareDraftAs(manager, c, c.g.userId, { medicine: `drug:${prescribersDrug}`, quantity: '' });
    expect(await storedDraft(draftId)).toMatchObject({ medicine: 'Cefalexin 500mg Capsule' });
    const refused = await manager.submit(draftFormPath(c), { ...DRAFT_FIELDS, medicine: `drug:${managersDrug}`, for_prescriber: c.g.userId });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('id="medicine-error"');
  });

  it('judges the body again on approval: a drug deleted meanwhile is refused on the draft page (422), and the draft waits', async () => {
    const [drugId] = await givenCatalogDrugs(t, c, [validDrug()]);
    const draftId = await prepareDraftAs(manager, c, c.g.userId, { medicine: `drug:${drugId}`, quantity: '' });
    expect((await t.app.inject({ method: 'DELETE', url: `${c.catalogUrl}/${drugId}`, headers: c.owner })).statusCode).toBe(200);
    const refused = await decide(prescriber, draftId, 'approve');
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('custom_drug_id: is not a drug of the organization catalog');
    expect((await storedDraft(draftId)).status).toBe('waiting');
    expect(await prescriptionsOf(c.g.organizationId)).toEqual([]);
    expect(await outboxEvents(t, c.g.organizationId)).toEqual([]);
  });
});

describe('who may decide', () => {
  it('a queue manager cannot approve or decline (403), even their own draft', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const csrf = csrfOf((await manager.get(draftPath(draftId))).body);
    for (const decision of ['approve', 'decline']) {
      const refused = await manager.post(`${draftPath(draftId)}/${decision}`, { _csrf: csrf, reason: 'x' });
      expect(refused.statusCode).toBe(403);
    }
    expect((await storedDraft(draftId)).status).toBe('waiting');
  });

  it("another prescriber cannot see or decide a draft named to someone else (404, not 403); nor can another organization's", async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const second = await givenSecondPrescriber(t, c);
    const other = await signInEnrolled(t, c.g, second);
    const csrf = csrfOf((await other.get('/dashboard')).body);
    expect((await other.get(draftPath(draftId))).statusCode).toBe(404);
    expect((await other.post(`${draftPath(draftId)}/approve`, { _csrf: csrf, form_id: 'x.y' })).statusCode).toBe(404);
    expect((await other.post(`${draftPath(draftId)}/decline`, { _csrf: csrf, form_id: 'x.y', reason: 'no' })).statusCode).toBe(404);
    const elsewhere = await givenClinic(t);
    const foreign = await signInEnrolled(t, elsewhere.g, elsewhere.g.userId);
    const foreignCsrf = csrfOf((await foreign.get('/dashboard')).body);
    expect((await foreign.get(draftPath(draftId))).statusCode).toBe(404);
    expect((await foreign.get(draftPath(draftId, 'embed'))).statusCode).toBe(404);
    expect((await foreign.post(`${draftPath(draftId)}/approve`, { _csrf: foreignCsrf, form_id: 'x.y' })).statusCode).toBe(404);
    expect((await storedDraft(draftId)).status).toBe('waiting');
  });

  it("a disabled prescriber's drafts cannot be approved: the session ends, and nothing is created", async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    const page = await prescriber.get(draftPath(draftId));
    expect(page.body).toContain('Approve and create prescription');
    expect((await t.app.inject({ method: 'PUT', url: `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/disable`, headers: c.owner })).statusCode).toBe(200);
    const action = `${draftPath(draftId)}/approve`;
    const refused = await prescriber.post(action, { _csrf: csrfOf(page.body), form_id: formIdFor(page.body, action) });
    expect([401, 403]).toContain(refused.statusCode);
    expect(await storedDraft(draftId)).toMatchObject({ status: 'waiting', scid: null });
    expect(await prescriptionsOf(c.g.organizationId)).toEqual([]);
  });

  it('a provider who cannot prescribe (yet) is refused the approval with what is missing (409)', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId);
    // The prescriber's HPI-I is taken over by another user of the organization: the record goes inactive.
    await t.deps.database.updateTable('provider_records').set({ status: 'inactive' }).where('user_id', '=', c.g.userId).execute();
    const refused = await decide(prescriber, draftId, 'approve');
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('cannot prescribe');
    expect((await storedDraft(draftId)).status).toBe('waiting');
  });
});
