// Paper prescriptions (issue 40, item 5): prescription_type PAPER from the test helper and the
// portal's form, paper for their whole life (no token, no delivery, no reissue). With a PDS
// connected (the sandbox simulator here) a paper prescription is submitted like an electronic
// one and becomes an ETP paper script: Active with the PDS's SCID, which its PDF carries as a
// Code 128 barcode; a PDS refusal makes it Error (no PDF). With ERX_PDS=none it is plain paper:
// Active at once, no SCID (addressed by erx's id), no barcode. Its PDF from the portal's
// prescription page reads back with every field the script content rules list. With the
// security cases of the PDF route. (Pending, then paper instead: test/pds/pds-paper-instead.test.ts.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { isScidFormat } from '../../src/pds/index.ts';
import { isValidScid } from '../../src/pds/pds-scid.ts';
import { DEMO_HPIO, DEMO_PRACTICE, DEMO_PRESCRIBER_DETAILS } from '../../src/onboarding/sandbox-seed.ts';
import { australianDate } from '../../src/prescriptions/script-items.ts';
import { SCRIPT_CONTENT_RULES } from '../../src/prescriptions/script-content-rules.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { givenUser, useTestApp } from '../given.ts';
import type { TestApp } from '../test-app.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn, type PortalClient } from '../portal/portal-given.ts';
import { givenPbsItems, PBS_TEST_ITEMS } from './pbs-given.ts';
import { givenClinic, givenPrescription, outboxEvents, prescribeBody, prescriptionsClient, send, storedPrescription } from './prescriptions-given.ts';
import { decodeCode128, readPdf } from './pdf-reader.ts';

const { t, c, other, api, session } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  await givenPbsItems(t);
  return { c, other: await givenClinic(t), api: prescriptionsClient(t, c), session: await signIn(t, c.g) };
});

const paperBody = (overrides: Record<string, unknown> = {}) => {
  const { delivery: _sentNowhere, ...body } = prescribeBody({ prescription_type: 'PAPER', ...overrides });
  return body;
};
const pdfPath = (scid: string, frame = 'dashboard', patientId = c.patientId) => `/${frame}/patients/${patientId}/prescriptions/${scid}/pdf`;
const tokenMessageCount = async (app: TestApp, organizationId: string) => (await app.deps.database.selectFrom('token_messages').select('id').where('organization_id', '=', organizationId).execute()).length;
/** A SCID the sandbox PDS assigned: the eRx format, without erx's own check character. */
const isSimulatorScid = (scid: unknown) => typeof scid === 'string' && isScidFormat(scid) && !isValidScid(scid);

describe('prescription_type PAPER through the test helper, with the sandbox PDS', () => {
  it("is submitted as a paper script and created Active with the PDS's SCID: no token page (url), no delivery, no token sent", async () => {
    const messagesBefore = await tokenMessageCount(t, c.g.organizationId);
    const response = await api.prescribe(paperBody());
    expect(response.statusCode, response.body).toBe(201);
    const data = response.json().data;
    expect(data).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
    expect(isSimulatorScid(data.scid), data.scid).toBe(true);
    expect(data).not.toHaveProperty('url');
    expect(data).not.toHaveProperty('delivery');
    const id = data.legal_metadata.prescription_id as string;
    expect(data.legal_metadata).toEqual({ conformance_id: 'ERX-SANDBOX-NOT-CONFORMANT', prescription_id: id, prescriber_hpii: DEMO_PRESCRIBER_DETAILS.hpii_number, organization_hpio: DEMO_HPIO });
    // The PDS was told it is a paper script, under erx's unique id, and holds one script for it.
    const submitted = t.pds.calls.filter((call) => call.method === 'submit').map((call) => call.argument as { uniqueId: string; paperScript: boolean });
    expect(submitted.filter((submission) => submission.uniqueId === id)).toMatchObject([{ paperScript: true }]);
    const atPds = await t.deps.database.selectFrom('pds_simulator_scripts').select(['scid', 'status']).where('unique_id', '=', id).execute();
    expect(atPds).toEqual([{ scid: data.scid, status: 'active' }]);
    // Addressed by its SCID, as any script the PDS took.
    expect((await api.read(data.scid)).json().data.prescription).toEqual(data);
    expect((await api.list()).json().data.prescriptions).toContainEqual(data);
    expect(await tokenMessageCount(t, c.g.organizationId)).toBe(messagesBefore);
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created' && (event.envelope.data as { scid: string }).scid === data.scid);
    expect(created).toHaveLength(1);
    expect(await storedPrescription(t, id)).toMatchObject({ scid: data.scid, prescription_type: 'PAPER', delivery_method: null, delivery_destination_encrypted: null, practice_state: 'VIC', practice_phone: '0399999999' });
  });

  it('refuses a delivery with a paper prescription, and an electronic one without a delivery, beside the field', async () => {
    const paper = await api.prescribe(prescribeBody({ prescription_type: 'PAPER' }));
    expect(paper.statusCode).toBe(422);
    expect(paper.json().error.validation).toEqual([{ field: 'delivery', message: expect.stringMatching(/^must be left out of a paper prescription/), code: 'VALIDATION_ERROR' }]);
    const electronic = await api.prescribe(paperBody({ prescription_type: 'ELECTRONIC' }));
    expect(electronic.statusCode).toBe(422);
    expect(electronic.json().error.validation).toEqual([{ field: 'delivery', message: 'delivery is required', code: 'REQUIRED_FIELD' }]);
    const unknown = await api.prescribe(paperBody({ prescription_type: 'FAX' }));
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.validation.map((issue: { field: string }) => issue.field)).toEqual(['prescription_type']);
  });

  it('stays paper: a reissue is refused (409, nothing changed, nothing asked of the PDS); a cease goes to the PDS first', async () => {
    const { reference: scid } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    expect(isSimulatorScid(scid)).toBe(true);
    const reissue = await api.change('reissue', scid, { delivery: { method: 'SMS', recipient_type: 'PATIENT' } });
    expect(reissue.statusCode).toBe(409);
    expect(reissue.json().error.detail).toMatch(/is a paper prescription: it has no token to send again/);
    expect(t.pds.calls.filter((call) => call.argument === scid)).toEqual([]);
    expect(await storedPrescription(t, scid)).toMatchObject({ prescription_type: 'PAPER', delivery_method: null, status: 'Active' });
    t.pds.failNext('cease', 'unreachable');
    expect((await api.change('cease', scid)).statusCode).toBe(503);
    const cease = await api.change('cease', scid);
    expect(cease.statusCode).toBe(200);
    expect(cease.json().data).toMatchObject({ prescription_type: 'PAPER', status: 'Ceased', scid });
    expect(await t.deps.database.selectFrom('pds_simulator_scripts').select('status').where('scid', '=', scid).execute()).toEqual([{ status: 'ceased' }]);
  });

  it('is dispensed at the PDS by its SCID (the pharmacy scans it); the PDS then refuses a cancel (409 with its reason)', async () => {
    const { reference: scid } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    const dispensed = await send(t, 'POST', `/v1/test-helpers/organizations/${c.g.organizationId}/prescriptions/${scid}/dispense`, c.headers);
    expect(dispensed.statusCode, dispensed.body).toBe(200);
    expect((await api.read(scid)).json().data.prescription.dispensing).toMatchObject({ supplies_dispensed: 1 });
    const cancel = await api.change('cancel', scid);
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json().error.detail).toMatch(/^The Prescription Delivery Service refused: .*dispensed/);
    expect(await storedPrescription(t, scid)).toMatchObject({ status: 'Active' });
  });
});

describe("a paper prescription's PDF, from the portal", () => {
  it("reads back with every field the script content rules list, and its Code 128 barcode decodes to the PDS's SCID", async () => {
    const authority = PBS_TEST_ITEMS.authority;
    const { reference: scid } = await givenPrescription(t, c, {
      prescription_type: 'PAPER', delivery: undefined, pbs_code: authority.pbs_code, quantity: 28, pbsdva_authority_number: 'AB12345',
      brand_substitution_not_allowed: true, regulation_24: true, repeat_interval_days: 20, controlled_substance_reference: 'PERMIT-77',
    });
    const seq = await lastAuditSeq(t);
    const response = await session.get(pdfPath(scid));
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="prescription-${scid}.pdf"`);
    expect(response.headers['cache-control']).toBe('no-store');
    const pdf = new Uint8Array(response.rawPayload);
    const read = await readPdf(pdf);
    const stored = (await storedPrescription(t, scid))!;
    expect(isSimulatorScid(stored.scid)).toBe(true);
    expect(scid).toBe(stored.scid);
    const today = australianDate(new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Melbourne' }).format(new Date(stored.created_at)));
    const expected: Record<string, string> = {
      benefit: 'PBS',
      prescriber_name: 'Anna Smith',
      practice_address: `${DEMO_PRACTICE.street}, ${DEMO_PRACTICE.suburb} ${DEMO_PRACTICE.state} ${DEMO_PRACTICE.postcode}`,
      practice_phone: '0399999999',
      prescriber_number: `Prescriber number: ${DEMO_PRESCRIBER_DETAILS.prescriber_number}`,
      prescriber_hpii: `HPI-I: ${DEMO_PRESCRIBER_DETAILS.hpii_number}`,
      organization_hpio: `HPI-O: ${DEMO_HPIO}`,
      patient_name: 'Patient: Jessica Wood',
      patient_date_of_birth: 'Date of birth: 14/02/1985',
      patient_address: 'Address: ',
      patient_medicare_or_dva: 'Medicare 2950141861',
      date_written: `Date: ${today}`,
      medicine: `Medicine: ${stored.item_name}`,
      directions: 'Directions: One capsule three times a day',
      quantity: 'Quantity: 28',
      repeats: 'Repeats: 1',
      repeat_interval: 'at least 20 days between supplies',
      authority: 'Authority approval number / streamlined code: AB12345',
      permit_reference: 'Permit / approval number: PERMIT-77',
      brand_substitution: 'Brand substitution not permitted',
      regulation_24: 'Regulation 24',
      signature: 'Anna Smith, signed:',
      conformance_id: 'Conformance ID: ERX-SANDBOX-NOT-CONFORMANT',
      unique_id: `Prescription ID: ${stored.id}`,
      scid: `SCID: ${scid}`,
    };
    // One expectation per rule of the table: a rule added without its check fails here.
    expect(Object.keys(expected).sort()).toEqual(SCRIPT_CONTENT_RULES.map((rule) => rule.item).sort());
    expect(Object.entries(expected).filter(([, words]) => !read.text.includes(words))).toEqual([]);
    expect(await decodeCode128(pdf)).toBe(scid);
    const printed = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'prescription.print');
    expect(printed).toMatchObject([{ outcome: 'success', prescription_scid: scid, patient_id: c.patientId }]);
  });

  it('is offered on the paper prescription\'s page (with its SCID and legal metadata), not the token QR code or a reissue', async () => {
    const { reference: scid, legal_metadata: legal } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    expect(isSimulatorScid(scid)).toBe(true);
    const page = await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${scid}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="${pdfPath(scid)}"`);
    expect(page.body).toContain('Paper (printed and handed to the patient)');
    expect(page.body).toContain(legal.prescription_id);
    expect(page.body).toContain('ERX-SANDBOX-NOT-CONFORMANT');
    expect(page.body).not.toContain('class="qr-code"');
    expect(page.body).not.toContain('/reissue"');
    expect(page.body).toContain('/cease"');
    // Its SCID shown, the PDF said to carry it, and the patient's list links it by its SCID.
    expect(page.body).toContain(`<dt id="scid-term">SCID</dt><dd aria-labelledby="scid-term" class="scid">${scid}</dd>`);
    expect(page.body).toContain('Its barcode is the SCID the pharmacy scans.');
    const list = await session.get(`/dashboard/patients/${c.patientId}`);
    expect(list.body).toContain(`<a href="/dashboard/patients/${c.patientId}/prescriptions/${scid}">${scid}</a>`);
  });

  it('is refused for an electronic prescription (404), another organization\'s (404), a bad SCID, without a session, and for a role that reads no prescription', async () => {
    const electronic = await givenPrescription(t, c);
    expect((await session.get(pdfPath(electronic.scid))).statusCode).toBe(404);
    const theirs = await givenPrescription(t, other, { prescription_type: 'PAPER', delivery: undefined });
    expect((await session.get(pdfPath(theirs.reference, 'dashboard', other.patientId))).statusCode).toBe(404);
    expect((await session.get(pdfPath(theirs.reference))).statusCode).toBe(404);
    const { reference } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    const mine = { scid: reference };
    expect((await session.get(pdfPath('NOT-A-SCID'))).statusCode).toBe(400);
    const anonymous = await t.app.inject({ method: 'GET', url: pdfPath(mine.scid) });
    expect([302, 303, 401]).toContain(anonymous.statusCode);
    expect(anonymous.headers['content-type']).not.toBe('application/pdf');
    const receptionist = await givenUser(t, c.g.organizationId, ['receptionist']);
    const refused = await (await signIn(t, c.g, '/dashboard', receptionist.user_id)).get(pdfPath(mine.scid));
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).not.toBe('application/pdf');
    // The embedded frame serves it too, to the same session.
    expect((await session.get(pdfPath(mine.scid, 'embed'))).headers['content-type']).toBe('application/pdf');
  });
});

describe("the portal's form", () => {
  const form = () => `/dashboard/patients/${c.patientId}/prescriptions`;
  const create = (client: PortalClient, fields: Record<string, string>) =>
    client.submit(form(), { medicine: 'pbs:2622B', quantity: '20', repeats: '1', repeat_interval_days: '', patient_instructions: 'One capsule three times a day', doctor_instructions: '', intent: 'create', ...fields });

  it("writes a paper prescription when Paper is chosen, with no token destination needed: Active with the PDS's SCID", async () => {
    const page = await session.get(form());
    expect(page.body).toContain('id="prescription_type_paper" name="prescription_type" type="radio" value="PAPER"');
    const created = await create(session, { prescription_type: 'PAPER', send_to: '' });
    const scid = scidOfRedirect(created);
    expect(isSimulatorScid(scid)).toBe(true);
    expect(await storedPrescription(t, scid)).toMatchObject({ prescription_type: 'PAPER', delivery_method: null, status: 'Active', scid });
    expect(await decodeCode128(new Uint8Array((await session.get(pdfPath(scid))).rawPayload))).toBe(scid);
    expect((await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${scid}`)).body).toContain(`href="${pdfPath(scid)}"`);
  });

  it('still asks where an electronic prescription\'s token goes, and refuses an unknown type beside the field', async () => {
    const electronic = await create(session, { prescription_type: 'ELECTRONIC', send_to: '' });
    expect(electronic.statusCode).toBe(422);
    expect(electronic.body).toContain('Choose where the token goes.');
    const page = await session.get(form());
    const unknown = await session.post(form(), { _csrf: csrfOf(page.body), ...formIdFieldOf(page.body), medicine: 'pbs:2622B', quantity: '20', prescription_type: 'FAX', send_to: 'patient-sms', intent: 'create' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('Prescription type must be ELECTRONIC or PAPER');
  });
});

describe("a paper prescription the PDS refuses (the fixture file's patient)", () => {
  const refusal = { code: 'PATIENT_BLOCKED', message: 'The PDS holds a block on this patient' };
  const fixtureFile = join(mkdtempSync(join(tmpdir(), 'paper-pds-')), 'hi.json');
  writeFileSync(fixtureFile, JSON.stringify({ patients: [{ ...HI_DEMO_PATIENTS.activeVerified, pds: { refuse: refusal } }] }));
  const refused = useTestApp({ env: { ERX_HI_FIXTURES: fixtureFile } });

  it('is Error with the PDS\'s description, no SCID, no event, and no PDF (its page says why)', async () => {
    const t = refused.t;
    const c = await givenClinic(t);
    const response = await prescriptionsClient(t, c).prescribe(paperBody());
    expect(response.statusCode, response.body).toBe(201);
    const data = response.json().data;
    expect(data).toMatchObject({ prescription_type: 'PAPER', status: 'Error', error: { description: expect.stringContaining(refusal.message) } });
    expect(data).not.toHaveProperty('scid');
    expect((await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created')).toEqual([]);
    const id = data.legal_metadata.prescription_id as string;
    const portal = await signIn(t, c.g);
    const path = `/dashboard/patients/${c.patientId}/prescriptions/${id}`;
    const page = await portal.get(path);
    expect(page.body).toContain('No PDF: this prescription was not issued');
    expect(page.body).not.toContain(`href="${path}/pdf"`);
    const pdf = await portal.get(`${path}/pdf`);
    expect(pdf.statusCode).toBe(409);
    expect(pdf.headers['content-type']).not.toBe('application/pdf');
  });
});

describe('with ERX_PDS=none: plain paper', () => {
  const none = useTestApp({ env: { ERX_PDS: 'none' } }, async (t) => {
    const c = await givenClinic(t);
    await givenPbsItems(t);
    return { c, api: prescriptionsClient(t, c), session: await signIn(t, c.g) };
  });

  it('creates an Active paper prescription without a SCID (no PDS took it), addressed by its id, no token page, no delivery, no token sent', async () => {
    const { t, c, api } = none;
    const messagesBefore = await tokenMessageCount(t, c.g.organizationId);
    const response = await api.prescribe(paperBody());
    expect(response.statusCode, response.body).toBe(201);
    const data = response.json().data;
    expect(data).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
    for (const absent of ['scid', 'url', 'delivery']) expect(data).not.toHaveProperty(absent);
    expect(data.legal_metadata).toEqual({ conformance_id: 'ERX-SANDBOX-NOT-CONFORMANT', prescription_id: expect.any(String), prescriber_hpii: DEMO_PRESCRIBER_DETAILS.hpii_number, organization_hpio: DEMO_HPIO });
    // Addressed by erx's id wherever a SCID would go: the read, the list, the event.
    const id = data.legal_metadata.prescription_id as string;
    expect((await api.read(id)).json().data.prescription).toEqual(data);
    expect((await api.read(id.toUpperCase())).json().data.prescription).toEqual(data);
    expect((await api.list()).json().data.prescriptions).toContainEqual(data);
    expect(await tokenMessageCount(t, c.g.organizationId)).toBe(messagesBefore);
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created' && (event.envelope.data as { scid: string }).scid === id);
    expect(created).toHaveLength(1);
    expect(await storedPrescription(t, id)).toMatchObject({ scid: null, prescription_type: 'PAPER', delivery_method: null, delivery_destination_encrypted: null });
    expect(await t.deps.database.selectFrom('pds_submissions').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('prints its PDF without a SCID or barcode, and its page and the patient\'s list name it for what it is', async () => {
    const { t, c, session: portal } = none;
    const { reference, scid } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    expect(scid).toBeUndefined();
    const path = `/dashboard/patients/${c.patientId}/prescriptions/${reference}`;
    const pdf = new Uint8Array((await portal.get(`${path}/pdf`)).rawPayload);
    const read = await readPdf(pdf);
    expect(read.text).toContain(`Prescription ID: ${reference}`);
    expect(read.text).not.toContain('SCID');
    await expect(decodeCode128(pdf)).rejects.toThrow();
    const page = await portal.get(path);
    expect(page.body).toContain(`href="${path}/pdf"`);
    expect(page.body).not.toContain('<dt id="scid-term">SCID</dt>');
    expect(page.body).not.toContain('Its barcode is the SCID');
    const list = await portal.get(`/dashboard/patients/${c.patientId}`);
    expect(list.body).toContain(`<a href="${path}">Paper (no SCID)</a>`);
  });
});
