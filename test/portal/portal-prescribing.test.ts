// Prescribing in the portal, through HTTP as a browser without JavaScript would: the form's
// medicines, prefill and readiness; creating (the prescriptions service's rules, the event
// with the session's reserved values, the confirmation); cease, cancel and reissue, each
// confirmed first and each causing its event; and the dashboard and patient pages.
import QRCode from 'qrcode';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { describe, expect, it } from 'vitest';
import { PRESCRIPTION_CHANGES, TRANSITIONS } from '../../src/prescriptions/index.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { SCOPES } from '../../src/auth/index.ts';
import { enablePartnerForOrganization } from '../../src/onboarding/index.ts';
import { bearer, givenPartner, givenUser, requestToken, useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, outboxEvents, prescriptionsClient, send, storedPrescription } from '../prescriptions/prescriptions-given.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn } from './portal-given.ts';

let catalogDrugId: string;
let ownDrugId: string;
let colleaguesDrugId: string;

const RESERVED = '?reserved_1=abc&reserved_2=&reserved_3=' + 'z'.repeat(40);

const { t, c, session } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  catalogDrugId = (await givenCatalogDrugs(t, c, [validDrug({ item_generic_name: 'Doxycycline <b>hyclate</b>', item_strength: '100mg', quantity: '7', max_repeats: '1' })]))[0]!;
  ownDrugId = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Ibuprofen', item_strength: '400mg', item_form: 'Tablet' }));
  const colleague = await givenUser(t, c.g.organizationId, ['provider']);
  colleaguesDrugId = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Colleague only' }), colleague.user_id);
  return { c, session: await signIn(t, c.g, `/embed/patients/${c.patientId}/prescriptions${RESERVED}`) };
});

const form = (frame = 'embed', patientId = c.patientId) => `/${frame}/patients/${patientId}/prescriptions`;
const valueOf = (html: string, id: string) => new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1];
const selectedIn = (html: string, id: string) => {
  const select = new RegExp(`<select id="${id}"[\\s\\S]*?</select>`).exec(html)?.[0] ?? '';
  return /<option value="([^"]*)" selected/.exec(select)?.[1];
};
const create = (fields: Record<string, string>, client = session) =>
  client.submit(form(), { medicine: 'pbs:2622B', quantity: '20', repeats: '1', repeat_interval_days: '7', patient_instructions: '', doctor_instructions: '', send_to: 'patient-sms', intent: 'create', ...fields });
const prescriptionCount = async () => (await t.deps.database.selectFrom('prescriptions').select('id').execute()).length;
/** The prescription entries of the audit trail after `seq`, as [action, outcome, SCID]. */
const prescriptionEntriesAfter = async (seq: number) =>
  (await auditEntriesAfter(t, seq)).filter((entry) => entry.action.startsWith('prescription.')).map((entry) => [entry.action, entry.outcome, entry.prescription_scid]);

describe('the new-prescription form', () => {
  it("offers the PBS Schedule, the organization's catalog and the prescriber's own drugs, never a colleague's own, escaped", async () => {
    const page = await session.get(form());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<optgroup label="Your organization&#39;s catalog">`);
    expect(page.body).toContain(`<option value="drug:${catalogDrugId}">Doxycycline &lt;b&gt;hyclate&lt;/b&gt; 100mg Capsule</option>`);
    expect(page.body).toContain(`<option value="drug:${ownDrugId}">Ibuprofen 400mg Tablet</option>`);
    expect(page.body).toContain('<optgroup label="PBS Schedule">');
    expect(page.body).toContain('<option value="pbs:2622B">Amoxicillin Capsule 500 mg (as trihydrate) (APO-Amoxicillin, Amoxil, Moxacin): PBS 2622B, Unrestricted benefit, max quantity 20, 1 repeat</option>');
    expect(page.body).not.toContain(colleaguesDrugId);
    expect(page.body).not.toContain('<b>hyclate');
  });

  it('has a visible label for every field, with the names partners rely on', async () => {
    const { body } = await session.get(form());
    for (const [id, label] of Object.entries({ medicine: 'Medicine', quantity: 'Quantity', repeats: 'Repeats', repeat_interval_days: 'Repeat interval (days)', patient_instructions: 'Patient instructions', doctor_instructions: 'Doctor instructions', send_to: 'Send token to' })) {
      expect(body).toContain(`<label for="${id}">${label}</label>`);
      expect(body).toMatch(new RegExp(`id="${id}"`));
    }
    expect(body).toContain('<button type="submit" name="intent" value="create">Create prescription</button>');
  });

  it('shows the session\'s reserved values read-only', async () => {
    const { body } = await session.get(form());
    expect(body).toContain('<dt>reserved_1</dt><dd>abc</dd>');
    expect(body).toContain(`<dt>reserved_3</dt><dd>${'z'.repeat(30)}</dd>`);
    expect(body).not.toContain('<dt>reserved_2</dt>');
    expect(body).not.toMatch(/name="reserved_/);
  });

  it('is prefilled from its query, within range', async () => {
    const { body } = await session.get(`${form()}?custom_drug_id=${catalogDrugId.toUpperCase()}&quantity=12&repeats=0&repeats_interval=30&patient_instructions=Twice%20daily&doctor_instructions=Review`);
    expect(selectedIn(body, 'medicine')).toBe(`drug:${catalogDrugId}`);
    expect([valueOf(body, 'quantity'), valueOf(body, 'repeats'), valueOf(body, 'repeat_interval_days')]).toEqual(['12', '0', '30']);
    expect(body).toMatch(/id="patient_instructions"[^>]*>Twice daily<\/textarea>/);
    expect(body).toMatch(/id="doctor_instructions"[^>]*>Review<\/textarea>/);
    expect(body).not.toContain('Some prefilled values were not used');
  });

  it('ignores numbers out of range with a warning on the form, and truncates long instructions', async () => {
    const { body } = await session.get(`${form()}?quantity=1000&repeats=-1&repeats_interval=366&patient_instructions=${'p'.repeat(260)}&doctor_instructions=${'d'.repeat(60)}`);
    expect(body).toContain('Some prefilled values were not used');
    expect(body).toContain('quantity &quot;1000&quot; was ignored: it must be a whole number from 1 to 999.');
    expect(body).toContain('repeats &quot;-1&quot; was ignored: it must be a whole number from 0 to 99.');
    expect(body).toContain('repeats_interval &quot;366&quot; was ignored: it must be a whole number from 1 to 365.');
    expect([valueOf(body, 'quantity'), valueOf(body, 'repeats'), valueOf(body, 'repeat_interval_days')]).toEqual(['', '', '']);
    expect(body).toMatch(new RegExp(`id="patient_instructions"[^>]*>${'p'.repeat(250)}</textarea>`));
    expect(body).toMatch(new RegExp(`id="doctor_instructions"[^>]*>${'d'.repeat(50)}</textarea>`));
  });

  it("ignores a custom_drug_id that is not one the prescriber may use, with a warning", async () => {
    const { body } = await session.get(`${form()}?custom_drug_id=${colleaguesDrugId}`);
    expect(body).toContain(`custom_drug_id &quot;${colleaguesDrugId}&quot; was ignored`);
    expect(selectedIn(body, 'medicine')).toBeUndefined();
  });

  it('narrows the medicines by a search, keeping what was entered and creating nothing', async () => {
    const before = await prescriptionCount();
    const response = await session.submit(form(), { search: 'ibu', quantity: '3', intent: 'search' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Ibuprofen 400mg Tablet');
    expect(response.body).not.toContain('Amoxicillin');
    expect(valueOf(response.body, 'quantity')).toBe('3');
    expect(await prescriptionCount()).toBe(before);
  });

  it('shows a prescriber who cannot prescribe why and what to fix, and refuses the post (409) without creating anything', async () => {
    const newcomer = await givenUser(t, c.g.organizationId, ['provider']);
    const theirs = await signIn(t, c.g, form(), newcomer.user_id);
    const page = await theirs.get(form());
    expect(page.body).toContain('You cannot prescribe yet');
    expect(page.body).toContain('Not met: the user has a provider record verified by the HI Service and still active.');
    expect(page.body).toContain('Send your provider details (HPI-I, names, date of birth, sex) from your clinical software (update user)');
    expect(page.body).toContain('<fieldset disabled>');
    const [before, seq] = [await snapshotDatabase(t.deps.database), await lastAuditSeq(t)];
    const refused = await create({}, theirs);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('cannot prescribe (is_escript_ready.can_prescribe is false)');
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    expect(await prescriptionEntriesAfter(seq)).toEqual([['prescription.create', 'refused', null]]);
  });
});

describe('creating a prescription', () => {
  it('calls the prescriptions service and shows the confirmation: SCID, medicine, delivery and the QR code', async () => {
    const response = await create({ patient_instructions: 'One capsule three times a day' });
    const scid = scidOfRedirect(response);
    expect(response.headers.location).toBe(`${form()}/${scid}?created=1`);
    const confirmation = await session.get(String(response.headers.location));
    expect(confirmation.body).toContain('<p class="notice success" role="status">Prescription created.</p>');
    expect(confirmation.body).toContain(`<dd aria-labelledby="scid-term" class="scid">${scid}</dd>`);
    expect(confirmation.body).toContain('<dd>Amoxicillin 500 mg (as trihydrate) Capsule</dd>');
    expect(confirmation.body).toContain('SMS to the patient (0412345678)');
    expect(confirmation.body).toContain(await QRCode.toString(scid, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    const read = await prescriptionsClient(t, c).read(scid);
    expect(read.json().data.prescription).toMatchObject({ scid, status: 'Active', item_name: 'Amoxicillin', quantity: '20', number_of_repeats_authorised: '1', repeat_intervals: '7', patient_instructions: 'One capsule three times a day' });
  });

  it("writes prescription.created with the session's reserved values (truncated to 30, empty as null), acted by the session's user", async () => {
    const scid = scidOfRedirect(await create({}));
    const event = (await outboxEvents(t, c.g.organizationId)).find((e) => e.event_type === 'prescription.created' && (e.envelope.data as { scid: string }).scid === scid);
    expect(event?.envelope).toMatchObject({
      partner_id: c.g.partnerId,
      data: { patient_id: c.patientId, user_id: c.g.userId, scid },
      metadata: { reserved_1: 'abc', reserved_2: null, reserved_3: 'z'.repeat(30) },
    });
  });

  it("writes the session partner's reserved values into its own event only: the patient's partner gets its event without them", async () => {
    // Partner B, enabled and validated for the clinic, opens the portal with its SSO link for a patient partner A created.
    const partnerB = await givenPartner(t);
    await enablePartnerForOrganization(t.features.onboarding, { organizationId: c.g.organizationId, partnerId: partnerB.partner_id });
    const b = { ...c.g, partnerId: partnerB.partner_id, partnerSecret: partnerB.partner_secret };
    expect((await send(t, 'GET', `/v1/organizations/${c.g.organizationId}/validate`, bearer(await requestToken(t, b, [...SCOPES]), b))).statusCode).toBe(200);
    const bSession = await signIn(t, b, `/embed/patients/${c.patientId}/prescriptions?reserved_1=b-visit&reserved_2=b-room`);
    const scid = scidOfRedirect(await create({}, bSession));
    const events = (await outboxEvents(t, c.g.organizationId)).filter((e) => e.event_type === 'prescription.created' && (e.envelope.data as { scid: string }).scid === scid);
    expect(Object.fromEntries(events.map((e) => [e.partner_id, e.envelope.metadata]))).toEqual({
      [c.g.partnerId]: { reserved_1: null, reserved_2: null, reserved_3: null },
      [partnerB.partner_id]: { reserved_1: 'b-visit', reserved_2: 'b-room', reserved_3: null },
    });
  });

  it("takes a custom drug's own quantity when none is entered, and sends the token to a pharmacy", async () => {
    const pharmacy = '5b0e3c1a-7f2d-4e8b-9a61-0c4d2e7f1a02';
    const scid = scidOfRedirect(await create({ medicine: `drug:${catalogDrugId}`, quantity: '', repeats: '', repeat_interval_days: '', send_to: `pharmacy-email:${pharmacy}` }));
    expect(await storedPrescription(t, scid)).toMatchObject({ item_name: 'Doxycycline <b>hyclate</b>', quantity: '7', number_of_repeats_authorised: '0', custom_drug_id: catalogDrugId, delivery_recipient_type: 'PHARMACY', delivery_pharmacy_id: pharmacy });
    const page = await session.get(`${form()}/${scid}`);
    expect(page.body).toContain('E-mail to Northside Sandbox Chemist (erx@northside-chemist.example)');
    expect(page.body).toContain('Doxycycline &lt;b&gt;hyclate&lt;/b&gt; 100mg Capsule');
  });

  it('shows every issue under its field (422), keeps what was entered, and creates nothing', async () => {
    const before = await snapshotDatabase(t.deps.database);
    const response = await create({ medicine: '', quantity: '0', repeats: '100', doctor_instructions: 'd'.repeat(51) });
    expect(response.statusCode).toBe(422);
    expect(response.body).toContain('<p class="error" id="medicine-error">Choose a medicine.</p>');
    expect(response.body).toContain('<p class="error" id="quantity-error">Quantity must be a whole number from 1 to 999</p>');
    expect(response.body).toContain('<p class="error" id="repeats-error">Repeats must be a whole number from 0 to 99</p>');
    expect(response.body).toMatch(/<p class="error" id="doctor_instructions-error">.*50 characters/);
    expect(response.body).toMatch(/id="quantity"[^>]*value="0"[^>]*aria-invalid="true"/);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });

  it("applies the service's rules: a custom drug's max_repeats, and a colleague's drug is not one the prescriber may use", async () => {
    const tooMany = await create({ medicine: `drug:${catalogDrugId}`, repeats: '2' });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.body).toContain("Repeats must not exceed the custom drug&#39;s max_repeats (1)");
    const colleagues = await create({ medicine: `drug:${colleaguesDrugId}` });
    expect(colleagues.statusCode).toBe(422);
    expect(colleagues.body).toContain('Medicine is not a drug of the organization catalog or of the prescriber&#39;s own');
  });

  it('works the same in the full-page portal, with navigation', async () => {
    const page = await session.get(form('dashboard'));
    expect(page.body).toContain('<nav aria-label="Portal">');
    expect((await session.get(form())).body).not.toContain('<nav');
    const created = await session.submit(form('dashboard'), { medicine: 'pbs:1234X', quantity: '10', send_to: 'patient-email', intent: 'create' });
    expect(created.headers.location).toMatch(new RegExp(`^${form('dashboard')}/[A-Z0-9]{18}\\?created=1$`));
  });
  it('refuses a PBS code the current schedule lacks, posted anyway', async () => {
    const posted = await session.submit(form(), { medicine: 'pbs:9999Z', quantity: '5', send_to: 'patient-sms', intent: 'create' });
    expect(posted.statusCode).toBe(422);
    expect(posted.body).toContain('<p class="error" id="medicine-error">Medicine is not an item of the current PBS Schedule (9999Z)</p>');
  });
});

describe('managing a prescription', () => {
  const page = (scid: string) => `${form()}/${scid}`;
  /** Asks for the change from the prescription's page; confirmed (`confirm: 'yes'`), through the confirmation page's own form, as a browser does. */
  const change = async (scid: string, action: string, fields: Record<string, string> = {}, from = page(scid)) => {
    const step = await session.submit(from, fields.confirm === 'yes' ? {} : fields, `${page(scid)}/${action}`);
    if (fields.confirm !== 'yes') return step;
    return session.post(`${page(scid)}/${action}`, { _csrf: csrfOf(step.body), ...formIdFieldOf(step.body), ...fields });
  };
  const eventsOf = async (scid: string) =>
    (await outboxEvents(t, c.g.organizationId)).filter((e) => (e.envelope.data as { scid: string }).scid === scid).map((e) => [e.event_type, e.envelope.metadata]);
  const metadata = { reserved_1: 'abc', reserved_2: null, reserved_3: 'z'.repeat(30) };

  it('shows the status and offers Cease, Cancel and Reissue while Active', async () => {
    const { scid } = await givenPrescription(t, c);
    const { body } = await session.get(page(scid));
    expect(body).toContain('<dd aria-labelledby="status-term">Active</dd>');
    for (const action of PRESCRIPTION_CHANGES) expect(body).toContain(`>${TRANSITIONS[action].portal.label}</button>`);
  });

  // The changes that end a prescription (the reissue, which keeps it, has its own test below).
  const ENDING = PRESCRIPTION_CHANGES.filter((action) => TRANSITIONS[action].to !== 'Active').map((action) => [action, TRANSITIONS[action].to, TRANSITIONS[action].event]);

  it.each(ENDING)('%s: a confirmation step first, changing nothing; confirmed, the status and its event', async (action, status, eventType) => {
    const { scid } = await givenPrescription(t, c);
    const [before, seq] = [await snapshotDatabase(t.deps.database), await lastAuditSeq(t)];
    const confirmation = await change(scid, action);
    expect(confirmation.statusCode).toBe(200);
    expect(confirmation.body).toContain('<button type="submit" class="danger">Confirm</button>');
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    // The prescription's page and its confirmation step show the prescription: two reads, no change.
    expect(await prescriptionEntriesAfter(seq)).toEqual([['prescription.read', 'success', scid], ['prescription.read', 'success', scid]]);
    const done = await change(scid, action, { confirm: 'yes' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${page(scid)}?done=${action}`);
    expect((await storedPrescription(t, scid))?.status).toBe(status);
    expect(await eventsOf(scid)).toEqual([['prescription.created', expect.anything()], [eventType, metadata]]);
    const after = await session.get(String(done.headers.location));
    expect(after.body).toContain(`This prescription is ${status}: it can no longer be changed.`);
    expect(after.body).not.toContain('Cease prescription');
  });

  it('reissue: confirmed with where the token goes now; the SCID stays, the delivery changes, prescription.reissued', async () => {
    const { scid } = await givenPrescription(t, c);
    const confirmation = await change(scid, 'reissue');
    expect(selectedIn(confirmation.body, 'send_to')).toBe('patient-sms');
    const done = await change(scid, 'reissue', { confirm: 'yes', send_to: 'patient-email' });
    expect(done.statusCode).toBe(303);
    const stored = await storedPrescription(t, scid);
    expect(stored).toMatchObject({ scid, status: 'Active', delivery_method: 'EMAIL' });
    expect(decryptSecret(stored!.delivery_destination_encrypted!, t.deps.secretKey)).toBe('j.wood@example.com');
    expect(await eventsOf(scid)).toEqual([['prescription.created', expect.anything()], ['prescription.reissued', metadata]]);
  });

  it('refuses what the lifecycle does not allow (409) on the confirmation page, writing nothing', async () => {
    const { scid } = await givenPrescription(t, c);
    await prescriptionsClient(t, c).change('cease', scid);
    const [before, seq] = [await snapshotDatabase(t.deps.database), await lastAuditSeq(t)];
    // The Ceased prescription's page has no form left: the token comes from another page of the session.
    const refused = await change(scid, 'cancel', { confirm: 'yes' }, form());
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Nothing was changed');
    expect(refused.body).toContain(`Prescription ${scid} is Ceased; only an Active prescription can be cancelled`);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    // The trail: the confirmation step (a read), the refusal, and the confirmation page shown again with it (a read).
    const read = ['prescription.read', 'success', scid];
    expect(await prescriptionEntriesAfter(seq)).toEqual([read, ['prescription.cancel', 'refused', scid], read]);
  });

  it('answers a 400 page for a SCID of the wrong form, and a 404 page for a vendor-format SCID it does not hold', async () => {
    const response = await session.get(page('NOT-A-SCID'));
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('is not a SCID');
    expect((await session.get(page('2F3WFX8J4WQH8T72X9'))).statusCode).toBe(404);
  });
});

describe('the dashboard and patient pages', () => {
  it('finds a patient by the partner\'s own id and lists their prescriptions, newest first, linked', async () => {
    const dashboard = await session.get('/dashboard');
    expect(dashboard.body).toContain('Signed in as <strong>Anna Smith</strong>');
    expect(dashboard.body).toContain('You can prescribe.');
    const found = await session.post('/dashboard/find-patient', { _csrf: csrfOf(dashboard.body), partner_patient_id: c.partnerPatientId });
    expect(found.statusCode).toBe(303);
    expect(found.headers.location).toBe(`/dashboard/patients/${c.patientId}`);
    const patient = await session.get(String(found.headers.location));
    expect(patient.body).toContain('<h1>Jessica Wood</h1>');
    const scids = [...patient.body.matchAll(/prescriptions\/([A-Z0-9]{18})">/g)].map((m) => m[1]);
    const listed = (await prescriptionsClient(t, c).list('?limit=50')).json().data.prescriptions.map((p: { scid: string }) => p.scid);
    expect(scids).toEqual(listed);
    expect(scids.length).toBeGreaterThan(3);
  });

  it('says when no patient has that id', async () => {
    const dashboard = await session.get('/dashboard');
    const response = await session.post('/dashboard/find-patient', { _csrf: csrfOf(dashboard.body), partner_patient_id: 'PMS#<nobody>' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('No patient of your organization has the id PMS#&lt;nobody&gt;.');
  });
});
