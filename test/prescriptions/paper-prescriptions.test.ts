// Paper prescriptions (issue 40, item 5): prescription_type PAPER from the test helper and the
// portal's form, paper for their whole life (no token, no delivery, no reissue), no SCID of
// erx's making (a SCID is the PDS's: addressed by erx's id instead), and their PDF from the
// portal's prescription page, read back with every field the script content rules list (the
// SCID barcode is for a script a PDS took: prescription-pdf.test.ts). With the security cases
// of the PDF route.
import { describe, expect, it } from 'vitest';
import { DEMO_HPIO, DEMO_PRACTICE, DEMO_PRESCRIBER_DETAILS } from '../../src/onboarding/sandbox-seed.ts';
import { australianDate } from '../../src/prescriptions/script-items.ts';
import { SCRIPT_CONTENT_RULES } from '../../src/prescriptions/script-content-rules.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { givenUser, useTestApp } from '../given.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn, type PortalClient } from '../portal/portal-given.ts';
import { givenPbsItems, PBS_TEST_ITEMS } from './pbs-given.ts';
import { givenClinic, givenPrescription, outboxEvents, prescribeBody, prescriptionsClient, storedPrescription } from './prescriptions-given.ts';
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
const tokenMessageCount = async () => (await t.deps.database.selectFrom('token_messages').select('id').where('organization_id', '=', c.g.organizationId).execute()).length;

describe('prescription_type PAPER through the test helper', () => {
  it('creates an Active paper prescription without a SCID (no PDS took it), no token page (url) and no delivery, and sends no token', async () => {
    const messagesBefore = await tokenMessageCount();
    const response = await api.prescribe(paperBody());
    expect(response.statusCode, response.body).toBe(201);
    const data = response.json().data;
    expect(data).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
    expect(data).not.toHaveProperty('scid');
    expect(data).not.toHaveProperty('url');
    expect(data).not.toHaveProperty('delivery');
    expect(data.legal_metadata).toEqual({ conformance_id: 'ERX-SANDBOX-NOT-CONFORMANT', prescription_id: expect.any(String), prescriber_hpii: DEMO_PRESCRIBER_DETAILS.hpii_number, organization_hpio: DEMO_HPIO });
    // Addressed by erx's id wherever a SCID would go: the read, the list, the event.
    const id = data.legal_metadata.prescription_id as string;
    expect((await api.read(id)).json().data.prescription).toEqual(data);
    expect((await api.read(id.toUpperCase())).json().data.prescription).toEqual(data);
    expect((await api.list()).json().data.prescriptions).toContainEqual(data);
    expect(await tokenMessageCount()).toBe(messagesBefore);
    // The partner hears of it as of any prescription, its data.scid the id the read takes.
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created' && (event.envelope.data as { scid: string }).scid === id);
    expect(created).toHaveLength(1);
    expect(await storedPrescription(t, id)).toMatchObject({ scid: null, prescription_type: 'PAPER', delivery_method: null, delivery_destination_encrypted: null, practice_state: 'VIC', practice_phone: '0399999999' });
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

  it('stays paper: a reissue is refused (409, nothing changed), a cease is allowed', async () => {
    const { reference: scid } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    const reissue = await api.change('reissue', scid, { delivery: { method: 'SMS', recipient_type: 'PATIENT' } });
    expect(reissue.statusCode).toBe(409);
    expect(reissue.json().error.detail).toMatch(/is a paper prescription: it has no token to send again/);
    expect(await storedPrescription(t, scid)).toMatchObject({ prescription_type: 'PAPER', delivery_method: null, status: 'Active' });
    const cease = await api.change('cease', scid);
    expect(cease.statusCode).toBe(200);
    expect(cease.json().data).toMatchObject({ prescription_type: 'PAPER', status: 'Ceased' });
  });
});

describe("a paper prescription's PDF, from the portal", () => {
  it('reads back with every field the script content rules list; without a SCID (no PDS took it) it has no barcode', async () => {
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
    };
    // One expectation per rule of the table: a rule added without its check fails here.
    // (The SCID is printed only on a script a PDS took: prescription-pdf.test.ts reads that one.)
    expect(Object.keys(expected).sort()).toEqual(SCRIPT_CONTENT_RULES.map((rule) => rule.item).filter((item) => item !== 'scid').sort());
    expect(Object.entries(expected).filter(([, words]) => !read.text.includes(words))).toEqual([]);
    expect(read.text).not.toContain('SCID');
    await expect(decodeCode128(pdf)).rejects.toThrow();
    const printed = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'prescription.print');
    expect(printed).toMatchObject([{ outcome: 'success', prescription_scid: scid, patient_id: c.patientId }]);
  });

  it('is offered on the paper prescription\'s page (with its legal metadata), not the token QR code or a reissue', async () => {
    const { reference: scid, legal_metadata: legal } = await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined });
    const page = await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${scid}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="${pdfPath(scid)}"`);
    expect(page.body).toContain('Paper (printed and handed to the patient)');
    expect(page.body).toContain(legal.prescription_id);
    expect(page.body).toContain('ERX-SANDBOX-NOT-CONFORMANT');
    expect(page.body).not.toContain('class="qr-code"');
    expect(page.body).not.toContain('/reissue"');
    expect(page.body).toContain('/cease"');
    // No SCID row, and the patient's list links it by its id, named for what it is.
    expect(page.body).not.toContain('<dt id="scid-term">SCID</dt>');
    const list = await session.get(`/dashboard/patients/${c.patientId}`);
    expect(list.body).toContain(`<a href="/dashboard/patients/${c.patientId}/prescriptions/${scid}">Paper (no SCID)</a>`);
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

  it('writes a paper prescription when Paper is chosen, with no token destination needed', async () => {
    const page = await session.get(form());
    expect(page.body).toContain('id="prescription_type_paper" name="prescription_type" type="radio" value="PAPER"');
    const created = await create(session, { prescription_type: 'PAPER', send_to: '' });
    const scid = scidOfRedirect(created);
    expect(await storedPrescription(t, scid)).toMatchObject({ prescription_type: 'PAPER', delivery_method: null });
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
