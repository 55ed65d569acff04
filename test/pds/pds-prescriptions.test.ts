// Prescriptions and the PDS, through the API: the SCID is the PDS's and the create waits for it;
// a refusal (from the fixture file's patient, or injected) makes the prescription Error with its
// description; an unreachable PDS leaves it Pending (no SCID, no event) and the job retries until
// it is accepted or its budget ends; cease, cancel and reissue ask the PDS first (409 with its
// reason, 503 with Retry-After, nothing changed); a sandbox dispense shows in the read API and
// blocks a cancel while a cease succeeds; prescription.dispensed goes only to subscribers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { isScidFormat } from '../../src/pds/index.ts';
import { isValidScid } from '../../src/pds/pds-scid.ts';
import { runDueSubmissions } from '../../src/prescriptions/pds-submission.ts';
import { setSubscribedEventTypes } from '../../src/webhooks/index.ts';
import { useTestApp } from '../given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic, outboxEvents, prescribeBody, prescriptionsClient, send, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';

const REFUSAL = { code: 'PATIENT_NOT_ELIGIBLE', message: 'The PDS holds no eligibility for this patient' };
const fixtureFile = join(mkdtempSync(join(tmpdir(), 'pds-fixtures-')), 'hi.json');
writeFileSync(fixtureFile, JSON.stringify({ patients: [{ ...HI_DEMO_PATIENTS.activeVerified, pds: { refuse: REFUSAL } }] }));

const dispensePath = (c: Clinic, scid: string) => `/v1/test-helpers/organizations/${c.g.organizationId}/prescriptions/${scid}/dispense`;
const eventTypes = async (t: TestApp, c: Clinic) => (await outboxEvents(t, c.g.organizationId)).map((event) => event.event_type);

describe('with a PDS that answers', () => {
  const { t } = useTestApp({ env: { ERX_PDS_WAIT_MS: '2000', ERX_PDS_TIMEOUT_MS: '300' } });

  it('creates Active with the SCID the PDS assigned, one script at the PDS, prescription.created carrying it', async () => {
    const c = await givenClinic(t);
    const response = await prescriptionsClient(t, c).prescribe();
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(data.status).toBe('Active');
    expect(isScidFormat(data.scid) && !isValidScid(data.scid)).toBe(true);
    const submitted = t.pds.calls.filter((call) => call.method === 'submit').map((call) => (call.argument as { uniqueId: string }).uniqueId);
    expect(submitted).toContain(data.legal_metadata.prescription_id);
    const created = (await outboxEvents(t, c.g.organizationId)).filter((event) => event.event_type === 'prescription.created');
    expect(created.map((event) => (event.envelope.data as { scid: string }).scid)).toEqual([data.scid]);
  });

  it('leaves a prescription Pending (no SCID, no event) while the PDS cannot be reached, and Active once a retry is accepted', async () => {
    const c = await givenClinic(t);
    t.pds.failNext('submit', 'unreachable');
    const response = await prescriptionsClient(t, c).prescribe();
    expect(response.statusCode).toBe(201);
    const pending = response.json().data;
    expect(pending.status).toBe('Pending');
    expect(pending.scid).toBeUndefined();
    expect(await eventTypes(t, c)).toEqual([]);
    // Read by erx's id meanwhile; the token page does not exist yet.
    const read = await prescriptionsClient(t, c).read(pending.legal_metadata.prescription_id);
    expect(read.json().data.prescription).toMatchObject({ status: 'Pending' });
    t.clock.advanceSeconds(2);
    await runDueSubmissions(t.features.prescriptions);
    const after = (await prescriptionsClient(t, c).read(pending.legal_metadata.prescription_id)).json().data.prescription;
    expect(after.status).toBe('Active');
    expect(isScidFormat(after.scid)).toBe(true);
    expect(await eventTypes(t, c)).toEqual(['prescription.created']);
  });

  it('makes a prescription Error once the PDS stays unreachable past ERX_PDS_BUDGET_MS', async () => {
    const c = await givenClinic(t);
    t.pds.failAlways('submit', 'unreachable');
    try {
      const pending = (await prescriptionsClient(t, c).prescribe()).json().data;
      t.clock.advanceSeconds(Number(t.deps.config.pdsBudgetMs) / 1000 + 1);
      await runDueSubmissions(t.features.prescriptions);
      const after = (await prescriptionsClient(t, c).read(pending.legal_metadata.prescription_id)).json().data.prescription;
      expect(after.status).toBe('Error');
      expect(after.error.description).toMatch(/could not be reached/);
      expect(await eventTypes(t, c)).toEqual([]);
    } finally {
      t.pds.failAlways('submit', undefined);
    }
  });

  it('makes a refused prescription Error with the PDS reason', async () => {
    const c = await givenClinic(t);
    t.pds.failNext('submit', { refuse: REFUSAL });
    const data = (await prescriptionsClient(t, c).prescribe()).json().data;
    expect(data.status).toBe('Error');
    expect(data.error.description).toBe(`The Prescription Delivery Service refused the prescription: ${REFUSAL.message} (${REFUSAL.code})`);
  });

  it('asks the PDS first: a refusal is a 409 with its reason, an outage a 503 with Retry-After, nothing changed', async () => {
    const c = await givenClinic(t);
    const { scid } = (await prescriptionsClient(t, c).prescribe()).json().data;
    t.pds.failNext('cease', { refuse: { code: 'LOCKED', message: 'The script is locked by a pharmacy' } });
    const refused = await prescriptionsClient(t, c).change('cease', scid, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.detail).toMatch(/The script is locked by a pharmacy \(LOCKED\)/);
    t.pds.failNext('cancel', 'unreachable');
    const down = await prescriptionsClient(t, c).change('cancel', scid, {});
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('30');
    t.pds.failNext('resendToken', 'timeout');
    expect((await prescriptionsClient(t, c).change('reissue', scid, {})).statusCode).toBe(503);
    expect((await prescriptionsClient(t, c).read(scid)).json().data.prescription.status).toBe('Active');
    expect(await eventTypes(t, c)).toEqual(['prescription.created']);
  });

  it('shows a sandbox dispense in the read API; a cancel is then refused (409, the PDS reason) and a cease succeeds', async () => {
    const c = await givenClinic(t);
    const { scid } = (await prescriptionsClient(t, c).prescribe(prescribeBody({ repeats: 2 }))).json().data;
    const dispensed = await send(t, 'POST', dispensePath(c, scid), c.headers);
    expect(dispensed.statusCode, dispensed.body).toBe(200);
    const prescription = (await prescriptionsClient(t, c).read(scid)).json().data.prescription;
    expect(prescription.dispensing).toEqual({ supplies_dispensed: 1, repeats_remaining: 2, last_dispensed_at: t.clock.now().toISOString() });
    const cancel = await prescriptionsClient(t, c).change('cancel', scid, {});
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json().error.detail).toMatch(/dispensed and cannot be cancelled/);
    expect((await prescriptionsClient(t, c).change('cease', scid, {})).statusCode).toBe(200);
    expect((await send(t, 'POST', dispensePath(c, scid), c.headers)).statusCode).toBe(409);
  });

  it('sends prescription.dispensed only to an endpoint that subscribes to it', async () => {
    const c = await givenClinic(t);
    const { scid } = (await prescriptionsClient(t, c).prescribe()).json().data;
    await send(t, 'POST', dispensePath(c, scid), c.headers);
    expect(await eventTypes(t, c)).toEqual(['prescription.created']);
    await setSubscribedEventTypes(t.features.webhooks, c.g.partnerId, ['prescription.created', 'prescription.dispensed']);
    await send(t, 'POST', dispensePath(c, scid), c.headers);
    expect(await eventTypes(t, c)).toEqual(['prescription.created', 'prescription.dispensed']);
  });

  it("refuses a dispense of another organization's prescription (404), a bad SCID (400), and without the sandbox scope's token (401)", async () => {
    const mine = await givenClinic(t);
    const theirs = await givenClinic(t);
    const { scid } = (await prescriptionsClient(t, theirs).prescribe()).json().data;
    expect((await send(t, 'POST', dispensePath(mine, scid), mine.headers)).statusCode).toBe(404);
    expect((await send(t, 'POST', dispensePath(mine, 'NOT-A-SCID'), mine.headers)).statusCode).toBe(400);
    expect((await send(t, 'POST', dispensePath(mine, scid), {})).statusCode).toBe(401);
    expect((await send(t, 'POST', dispensePath(theirs, scid), mine.headers)).statusCode).toBe(401);
  });
});

describe("with the fixture file's patient whose PDS submissions are refused", () => {
  const { t } = useTestApp({ env: { ERX_HI_FIXTURES: fixtureFile } });

  it('answers Error with the description the fixture gives, no SCID and no event', async () => {
    const c = await givenClinic(t);
    const data = (await prescriptionsClient(t, c).prescribe()).json().data;
    expect(data).toMatchObject({ status: 'Error', error: { description: expect.stringContaining(REFUSAL.message) } });
    expect(data.scid).toBeUndefined();
    expect(await eventTypes(t, c)).toEqual([]);
  });
});

describe('with ERX_PDS=none', () => {
  const { t } = useTestApp({ env: { ERX_PDS: 'none' } });

  it('refuses an electronic prescription, saying why, and writes a paper one', async () => {
    const c = await givenClinic(t);
    const electronic = await prescriptionsClient(t, c).prescribe();
    expect(electronic.statusCode).toBe(409);
    expect(electronic.json().error.detail).toMatch(/not connected to a Prescription Delivery Service \(ERX_PDS=none\).*paper/);
    const paper = await prescriptionsClient(t, c).prescribe(prescribeBody({ prescription_type: 'PAPER', delivery: undefined }));
    expect(paper.statusCode, paper.body).toBe(201);
    expect(paper.json().data).toMatchObject({ prescription_type: 'PAPER', status: 'Active' });
  });
});

describe("the portal's prescription page", () => {
  const { t } = useTestApp({ env: { ERX_PDS_WAIT_MS: '0' } });

  it('says a Pending prescription is being sent (no SCID), then shows the SCID and what was dispensed', async () => {
    const c = await givenClinic(t);
    t.pds.failNext('submit', 'unreachable');
    const pending = (await prescriptionsClient(t, c).prescribe()).json().data;
    await Promise.all([...t.features.prescriptions.pds.inFlight]);
    const id = pending.legal_metadata.prescription_id as string;
    const session = await signIn(t, c.g);
    const pendingPage = await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${id}`);
    expect(pendingPage.statusCode, pendingPage.body.slice(0, 300)).toBe(200);
    expect(pendingPage.body).toContain('Being sent to the Prescription Delivery Service: it has no SCID yet');
    t.clock.advanceSeconds(2);
    await runDueSubmissions(t.features.prescriptions);
    const { scid } = (await prescriptionsClient(t, c).read(id)).json().data.prescription;
    expect((await send(t, 'POST', dispensePath(c, scid), c.headers)).statusCode).toBe(200);
    const page = await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${scid}`);
    expect(page.body).toContain(scid);
    expect(page.body).not.toContain('Being sent to the Prescription Delivery Service');
    expect(page.body).toMatch(/Dispensed<\/dt><dd[^>]*>1 supply, last [0-9-]+ [0-9:]+ UTC; 1 repeat left/);
  });
});
