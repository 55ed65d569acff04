// Issue 40, item 5: while the PDS cannot be reached (the prescription Pending, electronic or a
// paper script waiting for its SCID), its prescriber may write it on (plain) paper instead, from its portal page: the submission is withdrawn and the
// prescription is PAPER for its whole life (no SCID, its PDF printable). A prescription is
// paper or electronic, never both: once the PDS took it, or while an attempt is in flight, the
// choice is refused saying why, also when the runner claims the job at the same moment.
import { describe, expect, it } from 'vitest';
import { runDueSubmissions } from '../../src/prescriptions/pds-submission.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { useTestApp } from '../given.ts';
import { signInEnrolled } from '../mfa/mfa-given.ts';
import { sessionWithRoles } from '../portal/approval-given.ts';
import { csrfOf, type PortalClient } from '../portal/portal-given.ts';
import { decodeCode128 } from '../prescriptions/pdf-reader.ts';
import { givenClinic, givenSecondPrescriber, outboxEvents, prescribeBody, prescriptionsClient, storedPrescription, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';

const { t } = useTestApp({ env: { ERX_PDS_WAIT_MS: '0', ERX_PDS_TIMEOUT_MS: '300' } });

const pagePath = (c: Clinic, reference: string, patientId = c.patientId) => `/dashboard/patients/${patientId}/prescriptions/${reference}`;

/** A prescription (electronic, or a paper script) the PDS could not be reached for: Pending, its id (it has no SCID). */
async function givenPending(c: Clinic, type: 'ELECTRONIC' | 'PAPER' = 'ELECTRONIC'): Promise<string> {
  t.pds.failNext('submit', 'unreachable');
  const body = type === 'PAPER' ? prescribeBody({ prescription_type: 'PAPER', delivery: undefined }) : prescribeBody();
  const data = (await prescriptionsClient(t, c).prescribe(body)).json().data;
  expect(data.prescription_type).toBe(type);
  await Promise.all([...t.features.prescriptions.pds.inFlight]);
  expect(data.status).toBe('Pending');
  return data.legal_metadata.prescription_id as string;
}

/** Posts the page's "Write it on paper instead" form (the CSRF token of the session's page). */
async function choosePaper(session: PortalClient, path: string, csrfFrom = path) {
  const page = await session.get(csrfFrom);
  return session.post(`${path}/paper`, { _csrf: csrfOf(page.body) });
}

const submissionOf = (id: string) => t.deps.database.selectFrom('pds_submissions').select(['status']).where('id', '=', id).executeTakeFirstOrThrow();
const liveScriptsAtPds = async (id: string) => (await t.deps.database.selectFrom('pds_simulator_scripts').select('status').where('unique_id', '=', id).execute()).filter((row) => row.status === 'active');
const submitCount = () => t.pds.calls.filter((call) => call.method === 'submit').length;

describe('writing a Pending prescription on paper instead', () => {
  it('withdraws its submission and makes it PAPER and Active for good: no SCID, no delivery, its PDF, the created event, nothing sent afterwards', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId, '/dashboard?reserved_1=visit-3');
    const id = await givenPending(c);
    const page = await session.get(pagePath(c, id));
    expect(page.body).toContain('>Write it on paper instead</button>');
    const seq = await lastAuditSeq(t);
    const answer = await choosePaper(session, pagePath(c, id));
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
    expect(answer.headers.location).toBe(`${pagePath(c, id)}?done=paper`);
    const read = (await prescriptionsClient(t, c).read(id)).json().data.prescription;
    expect(read).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
    for (const absent of ['scid', 'url', 'delivery', 'error']) expect(read).not.toHaveProperty(absent);
    expect(await submissionOf(id)).toEqual({ status: 'withdrawn' });
    const shown = await session.get(String(answer.headers.location));
    expect(shown.body).toContain('Written on paper instead');
    expect(shown.body).toContain(`href="${pagePath(c, id)}/pdf"`);
    expect(shown.body).not.toContain('Write it on paper instead</button>');
    const pdf = await session.get(`${pagePath(c, id)}/pdf`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created');
    expect(created.map((event) => event.envelope)).toMatchObject([{ data: { scid: id, user_id: c.g.userId } }]);
    const actions = (await auditEntriesAfter(t, seq)).map((entry) => `${entry.action} ${entry.outcome}`);
    expect(actions).toEqual(expect.arrayContaining(['prescription.paper_instead success', 'prescription.create success']));
    // The PDS is reachable again: the withdrawn job is not tried, and nothing reaches the PDS.
    const before = submitCount();
    t.clock.advanceSeconds(120);
    await runDueSubmissions(t.features.prescriptions);
    expect(submitCount()).toBe(before);
    expect(await liveScriptsAtPds(id)).toEqual([]);
    expect(await storedPrescription(t, id)).toMatchObject({ prescription_type: 'PAPER', status: 'Active', scid: null, delivery_destination_encrypted: null });
  });

  it('is refused once the PDS took it: the prescription stays electronic with its SCID', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const id = await givenPending(c);
    const page = await session.get(pagePath(c, id));
    t.clock.advanceSeconds(2);
    await runDueSubmissions(t.features.prescriptions);
    const { scid } = (await storedPrescription(t, id))!;
    // The page was loaded while it was Pending: its button is posted after the PDS accepted it.
    const answer = await session.post(`${pagePath(c, id)}/paper`, { _csrf: csrfOf(page.body) });
    expect(answer.statusCode).toBe(409);
    expect(answer.body).toContain(`the Prescription Delivery Service accepted it (SCID ${scid}), so it is an electronic prescription and cannot also be written on paper`);
    expect(await storedPrescription(t, id)).toMatchObject({ prescription_type: 'ELECTRONIC', status: 'Active', scid });
    expect(await liveScriptsAtPds(id)).toHaveLength(1);
  });

  it('is refused while an attempt is in flight (the job leased), and allowed once it failed', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const id = await givenPending(c);
    t.clock.advanceSeconds(2);
    t.pds.failNext('submit', 'timeout');
    const calls = submitCount();
    const runner = runDueSubmissions(t.features.prescriptions);
    while (submitCount() === calls) await new Promise((resolve) => setImmediate(resolve));
    const refused = await choosePaper(session, pagePath(c, id));
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('is being sent to the Prescription Delivery Service at this moment');
    await runner;
    expect(await storedPrescription(t, id)).toMatchObject({ prescription_type: 'ELECTRONIC', status: 'Pending' });
    expect((await choosePaper(session, pagePath(c, id))).statusCode).toBe(303);
  });

  it('cancels at the PDS a script it took after the prescription was written on paper (the attempt outlived its lease)', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const id = await givenPending(c);
    t.clock.advanceSeconds(2);
    // The PDS holds this attempt's submission until the test lets it go, then accepts it.
    const submit = t.pds.submit;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached = false;
    t.pds.submit = async (submission, signal) => {
      reached = true;
      await held;
      return submit(submission, signal);
    };
    try {
      const runner = runDueSubmissions(t.features.prescriptions);
      while (!reached) await new Promise((resolve) => setImmediate(resolve));
      t.clock.advanceSeconds(60);
      expect((await choosePaper(session, pagePath(c, id))).statusCode).toBe(303);
      release();
      await runner;
    } finally {
      t.pds.submit = submit;
    }
    expect(await storedPrescription(t, id)).toMatchObject({ prescription_type: 'PAPER', status: 'Active', scid: null });
    const scripts = await t.deps.database.selectFrom('pds_simulator_scripts').select('status').where('unique_id', '=', id).execute();
    expect(scripts).toEqual([{ status: 'cancelled' }]);
    expect((await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created')).toHaveLength(1);
  });

  it('leaves every prescription paper or electronic, never both, when the runner claims its job at the same moment', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) ids.push(await givenPending(c));
    const pages = await Promise.all(ids.map((id) => session.get(pagePath(c, id))));
    t.clock.advanceSeconds(2);
    const [answers] = await Promise.all([
      Promise.all(ids.map((id, index) => session.post(`${pagePath(c, id)}/paper`, { _csrf: csrfOf(pages[index]!.body) }))),
      runDueSubmissions(t.features.prescriptions, 2),
    ]);
    for (const [index, id] of ids.entries()) {
      const stored = (await storedPrescription(t, id))!;
      const answer = answers[index]!;
      if (answer.statusCode === 303) {
        expect(stored).toMatchObject({ prescription_type: 'PAPER', status: 'Active', scid: null });
        expect(await submissionOf(id)).toEqual({ status: 'withdrawn' });
        expect(await liveScriptsAtPds(id)).toEqual([]);
      } else {
        expect(answer.statusCode).toBe(409);
        expect(answer.body).toMatch(/accepted it|at this moment|has just accepted/);
        expect(stored).toMatchObject({ prescription_type: 'ELECTRONIC' });
        expect(stored.status === 'Active' ? await liveScriptsAtPds(id) : []).toHaveLength(stored.status === 'Active' ? 1 : 0);
      }
    }
  });
});

describe('a paper prescription waiting for its SCID (the PDS unreachable)', () => {
  it('is Pending without a PDF (its page says why), and written on plain paper instead: Active, no SCID, its PDF without a barcode, nothing at the PDS', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const id = await givenPending(c, 'PAPER');
    const page = await session.get(pagePath(c, id));
    expect(page.body).toContain('No PDF: this prescription is being sent to the Prescription Delivery Service');
    expect(page.body).not.toContain(`href="${pagePath(c, id)}/pdf"`);
    expect(page.body).toContain('becomes a plain paper prescription without a SCID');
    expect(page.body).toContain('>Write it on paper instead</button>');
    const early = await session.get(`${pagePath(c, id)}/pdf`);
    expect(early.statusCode).toBe(409);
    expect(early.headers['content-type']).not.toBe('application/pdf');
    const answer = await choosePaper(session, pagePath(c, id));
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
    const read = (await prescriptionsClient(t, c).read(id)).json().data.prescription;
    expect(read).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
    for (const absent of ['scid', 'url', 'delivery', 'error']) expect(read).not.toHaveProperty(absent);
    expect(await submissionOf(id)).toEqual({ status: 'withdrawn' });
    const pdf = await session.get(`${pagePath(c, id)}/pdf`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    await expect(decodeCode128(new Uint8Array(pdf.rawPayload))).rejects.toThrow();
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created');
    expect(created.map((event) => event.envelope)).toMatchObject([{ data: { scid: id } }]);
    // The PDS is reachable again: the withdrawn job is not tried.
    const before = submitCount();
    t.clock.advanceSeconds(120);
    await runDueSubmissions(t.features.prescriptions);
    expect(submitCount()).toBe(before);
    expect(await liveScriptsAtPds(id)).toEqual([]);
  });

  it('becomes an ETP paper script once a retry is accepted, and is then refused plain paper (its PDF carries the SCID)', async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const id = await givenPending(c, 'PAPER');
    t.clock.advanceSeconds(2);
    await runDueSubmissions(t.features.prescriptions);
    const { scid } = (await storedPrescription(t, id))!;
    expect(await storedPrescription(t, id)).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
    expect(scid).toMatch(/^[A-Z0-9]{18}$/);
    const refused = await session.post(`${pagePath(c, id)}/paper`, { _csrf: csrfOf((await session.get(pagePath(c, id))).body) });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain(`the Prescription Delivery Service accepted it (SCID ${scid}); print its PDF, which carries the SCID`);
    expect(await decodeCode128(new Uint8Array((await session.get(`${pagePath(c, scid!)}/pdf`)).rawPayload))).toBe(scid);
    expect(await liveScriptsAtPds(id)).toHaveLength(1);
  });
});

describe('the choice of paper is refused', () => {
  it("to a role without portal:prescribe (403), for another organization's prescription (404), without the CSRF token (403), and asks a fresh factor", async () => {
    const c = await givenClinic(t);
    const other = await givenClinic(t);
    const id = await givenPending(c);
    const theirs = await givenPending(other);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    for (const roles of [['rx_reader'], ['rx_queue_manager'], ['receptionist']]) {
      const user = await sessionWithRoles(t, c, roles);
      const answer = await user.post(`${pagePath(c, id)}/paper`, {});
      expect(answer.statusCode, roles.join()).toBe(403);
    }
    expect((await choosePaper(session, pagePath(c, theirs), pagePath(c, id))).statusCode).toBe(404);
    expect((await choosePaper(session, pagePath(c, theirs, other.patientId), pagePath(c, id))).statusCode).toBe(404);
    expect((await session.post(`${pagePath(c, id)}/paper`, {})).statusCode).toBe(403);
    // Past the step-up's 5 minutes: the factor page first, nothing changed.
    t.clock.advanceSeconds(6 * 60);
    const stale = await choosePaper(session, pagePath(c, id));
    expect(stale.statusCode).toBe(303);
    expect(String(stale.headers.location)).toMatch(/^\/dashboard\/mfa\?.*step_up=1/);
    for (const pending of [id, theirs]) expect(await storedPrescription(t, pending)).toMatchObject({ prescription_type: 'ELECTRONIC', status: 'Pending' });
    expect(await submissionOf(theirs)).toEqual({ status: 'pending' });
  });

  it("for an Active electronic prescription, a paper one, and another prescriber's Pending one (409, saying why), changing nothing", async () => {
    const c = await givenClinic(t);
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const created = (await prescriptionsClient(t, c).prescribe()).json().data;
    await Promise.all([...t.features.prescriptions.pds.inFlight]);
    const active = (await prescriptionsClient(t, c).read(created.legal_metadata.prescription_id)).json().data.prescription;
    expect(active.status).toBe('Active');
    const paper = await choosePaper(session, pagePath(c, active.scid));
    expect(paper.statusCode).toBe(409);
    expect(paper.body).toContain('is Active, not being sent');
    const id = await givenPending(c);
    expect((await choosePaper(session, pagePath(c, id))).statusCode).toBe(303);
    const again = await choosePaper(session, pagePath(c, id));
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('is already a paper prescription');
    const colleague = await givenSecondPrescriber(t, c);
    t.pds.failNext('submit', 'unreachable');
    const theirs = (await prescriptionsClient(t, c).prescribe(undefined, { userId: colleague })).json().data;
    await Promise.all([...t.features.prescriptions.pds.inFlight]);
    const refused = await choosePaper(session, pagePath(c, theirs.legal_metadata.prescription_id));
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('can be written on paper only by its own prescriber');
    expect(await storedPrescription(t, theirs.legal_metadata.prescription_id)).toMatchObject({ prescription_type: 'ELECTRONIC', status: 'Pending' });
    expect(await storedPrescription(t, active.scid)).toMatchObject({ prescription_type: 'ELECTRONIC', status: 'Active' });
  });
});
