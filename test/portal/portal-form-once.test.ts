// A form submits once: the new-prescription form and the cease, cancel and reissue
// confirmations carry a one-time form id, so the same form posted twice (one after the other,
// or both at once as a double click sends them) makes one prescription and one event, and the
// second post is sent to what the first made. A form id of another session, patient or
// prescription is refused and changes nothing.
import { describe, expect, it } from 'vitest';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPatient, givenPrescription, outboxEvents, storedPrescription, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn, type PortalClient } from './portal-given.ts';

let t: TestApp;
let c: Clinic;
let session: PortalClient;

useTestApp({}, async (app) => {
  t = app;
  c = await givenClinic(t);
  session = await signIn(t, c.g);
  return {};
});

const form = (patientId = c.patientId) => `/embed/patients/${patientId}/prescriptions`;
const page = (scid: string) => `${form()}/${scid}`;
const FIELDS = { medicine: 'pbs:2622B', quantity: '20', repeats: '1', repeat_interval_days: '7', send_to: 'patient-sms', intent: 'create' };

const eventTypes = async (type: string) => (await outboxEvents(t, c.g.organizationId)).filter((e) => e.event_type === type);
const prescriptionCount = async () => (await t.deps.database.selectFrom('prescriptions').select('id').where('organization_id', '=', c.g.organizationId).execute()).length;

/** The fields a browser posts from the form page `html`: its _csrf and form_id, and `fields`. */
const postedFrom = (html: string, fields: Record<string, string>) => ({ _csrf: csrfOf(html), ...formIdFieldOf(html), ...fields });

describe('the new-prescription form submits once', () => {
  it('creates one prescription and one prescription.created when the same form is posted twice; the second goes to the first one', async () => {
    const [prescriptions, events] = [await prescriptionCount(), (await eventTypes('prescription.created')).length];
    const html = (await session.get(form())).body;
    expect(formIdFieldOf(html).form_id).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    const first = await session.post(form(), postedFrom(html, FIELDS));
    const again = await session.post(form(), postedFrom(html, FIELDS));
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(first.headers.location);
    expect(scidOfRedirect(again)).toBe(scidOfRedirect(first));
    expect(await prescriptionCount()).toBe(prescriptions + 1);
    expect(await eventTypes('prescription.created')).toHaveLength(events + 1);
  });

  it('creates one prescription when both posts arrive at once (a double click)', async () => {
    const [prescriptions, events] = [await prescriptionCount(), (await eventTypes('prescription.created')).length];
    const html = (await session.get(form())).body;
    const responses = await Promise.all([0, 1, 2].map(() => session.post(form(), postedFrom(html, FIELDS))));
    const scids = responses.map(scidOfRedirect);
    expect(new Set(scids).size).toBe(1);
    expect(await prescriptionCount()).toBe(prescriptions + 1);
    expect(await eventTypes('prescription.created')).toHaveLength(events + 1);
  });

  it('lets a form shown again with its errors (422) be corrected and sent with the same id, once', async () => {
    const html = (await session.get(form())).body;
    const invalid = await session.post(form(), postedFrom(html, { ...FIELDS, quantity: '0' }));
    expect(invalid.statusCode).toBe(422);
    expect(formIdFieldOf(invalid.body)).toEqual(formIdFieldOf(html));
    const before = await prescriptionCount();
    const first = scidOfRedirect(await session.post(form(), postedFrom(invalid.body, FIELDS)));
    expect(scidOfRedirect(await session.post(form(), postedFrom(invalid.body, FIELDS)))).toBe(first);
    expect(await prescriptionCount()).toBe(before + 1);
  });

  it('gives a new form a new id: two forms make two prescriptions', async () => {
    const before = await prescriptionCount();
    const one = scidOfRedirect(await session.submit(form(), FIELDS));
    const two = scidOfRedirect(await session.submit(form(), FIELDS));
    expect(one).not.toBe(two);
    expect(await prescriptionCount()).toBe(before + 2);
  });

  it("refuses, changing nothing, a post without a form id, with an altered one, or with another session's or patient's", async () => {
    const html = (await session.get(form())).body;
    const { form_id: formId } = formIdFieldOf(html) as { form_id: string };
    const otherSession = await signIn(t, c.g);
    const othersId = formIdFieldOf((await otherSession.get(form())).body).form_id!;
    const otherPatient = (await givenPatient(t, c)).patientId;
    const otherPatientsId = formIdFieldOf((await session.get(form(otherPatient))).body).form_id!;
    for (const sent of ['', `${formId.slice(0, -2)}xx`, othersId, otherPatientsId]) {
      const before = await snapshotDatabase(t.deps.database);
      const response = await session.post(form(), { _csrf: csrfOf(html), ...FIELDS, ...(sent ? { form_id: sent } : {}) });
      expect(response.statusCode, sent).toBe(409);
      expect(response.body).toContain('This form is out of date or was not shown in this session');
      expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    }
  });
});

describe("the new-prescription form's address carries its id, so Back returns to the same form", () => {
  const FORM_ID = /^[\w-]{22}\.[\w-]{43}$/;
  const rawGet = (path: string, cookie = session.cookie) => t.app.inject({ method: 'GET', url: path, headers: { cookie } });
  /** The form_id a redirect put in the address, after checking it leads to the same path. */
  const issuedIn = (response: { statusCode: number; headers: Record<string, unknown> }, path: string) => {
    expect(response.statusCode).toBe(303);
    const location = new URL(String(response.headers.location), 'http://portal.test');
    expect(location.pathname).toBe(path);
    return location;
  };

  it.each(['embed', 'dashboard'])('%s: answers an address without an id with 303 to the same address, its prefill kept, plus a new id the page then shows', async (frame) => {
    const path = `/${frame}/patients/${c.patientId}/prescriptions`;
    const location = issuedIn(await rawGet(`${path}?quantity=28&repeats=5&patient_instructions=with%20food&search=amox`), path);
    expect([...location.searchParams.keys()]).toEqual(['quantity', 'repeats', 'patient_instructions', 'search', 'form_id']);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ quantity: '28', repeats: '5', patient_instructions: 'with food', search: 'amox' });
    const formId = location.searchParams.get('form_id')!;
    expect(formId).toMatch(FORM_ID);
    const shown = await rawGet(`${location.pathname}${location.search}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain('This form was already sent');
    expect(formIdFieldOf(shown.body)).toEqual({ form_id: formId });
    expect(shown.body).toContain('value="28"');
    expect(shown.body).toContain('with food');
  });

  it('a second post of the form reloaded from its address (the Back button) creates nothing and goes to the first prescription', async () => {
    const [prescriptions, events] = [await prescriptionCount(), (await eventTypes('prescription.created')).length];
    const address = issuedIn(await rawGet(form()), form());
    const path = `${address.pathname}${address.search}`;
    const first = await session.post(form(), postedFrom((await rawGet(path)).body, FIELDS));
    const back = await rawGet(path);
    expect(back.statusCode).toBe(200);
    expect(formIdFieldOf(back.body)).toEqual({ form_id: address.searchParams.get('form_id') });
    expect(back.body).toContain('This form was already sent');
    expect(back.body).toContain(`>${scidOfRedirect(first)}</a>`);
    const again = await session.post(form(), postedFrom(back.body, FIELDS));
    expect(scidOfRedirect(again)).toBe(scidOfRedirect(first));
    expect(await prescriptionCount()).toBe(prescriptions + 1);
    expect(await eventTypes('prescription.created')).toHaveLength(events + 1);
  });

  it("never trusts an id in the address: a forged, altered, another session's or another patient's id is replaced by a new one", async () => {
    const own = issuedIn(await rawGet(form()), form()).searchParams.get('form_id')!;
    const otherSession = await signIn(t, c.g);
    const othersId = issuedIn(await rawGet(form(), otherSession.cookie), form()).searchParams.get('form_id')!;
    const otherPatient = (await givenPatient(t, c)).patientId;
    const otherPatientsId = issuedIn(await rawGet(form(otherPatient)), form(otherPatient)).searchParams.get('form_id')!;
    for (const presented of ['forged', 'a.b', `${own.slice(0, -2)}xx`, `${own}.extra`, othersId, otherPatientsId]) {
      const location = issuedIn(await rawGet(`${form()}?quantity=3&form_id=${encodeURIComponent(presented)}&form_id=${encodeURIComponent(own)}`), form());
      expect(location.searchParams.getAll('form_id'), presented).toHaveLength(1);
      const issued = location.searchParams.get('form_id')!;
      expect(issued).toMatch(FORM_ID);
      expect([own, presented]).not.toContain(issued);
      expect(location.searchParams.get('quantity')).toBe('3');
    }
  });

  it("answers another organization's patient with 404 before any id is issued", async () => {
    const other = await givenClinic(t);
    const response = await rawGet(form(other.patientId));
    expect(response.statusCode).toBe(404);
    expect(response.headers.location).toBeUndefined();
  });
});

describe('cease, cancel and reissue confirmations submit once', () => {
  const confirmationOf = async (scid: string, action: string) => {
    const step = await session.submit(page(scid), {}, `${page(scid)}/${action}`);
    expect(step.statusCode).toBe(200);
    return step.body;
  };

  it.each(['cease', 'cancel', 'reissue'])('%s: the confirmation posted twice makes one change and one event; the second goes to the prescription', async (action) => {
    const { scid } = await givenPrescription(t, c);
    const html = await confirmationOf(scid, action);
    const fields = { confirm: 'yes', ...(action === 'reissue' ? { send_to: 'patient-sms' } : {}) };
    const responses = await Promise.all([0, 1].map(() => session.post(`${page(scid)}/${action}`, postedFrom(html, fields))));
    for (const response of responses) expect(response.headers.location).toBe(`${page(scid)}?done=${action}`);
    const again = await session.post(`${page(scid)}/${action}`, postedFrom(html, fields));
    expect(again.headers.location).toBe(`${page(scid)}?done=${action}`);
    const events = (await outboxEvents(t, c.g.organizationId)).filter((e) => (e.envelope.data as { scid: string }).scid === scid).map((e) => e.event_type);
    expect(events).toEqual(['prescription.created', `prescription.${action === 'cease' ? 'ceased' : action === 'cancel' ? 'cancelled' : 'reissued'}`]);
    expect((await storedPrescription(t, scid))?.status).toBe({ cease: 'Ceased', cancel: 'Cancelled', reissue: 'Active' }[action]);
  });

  it("refuses a confirmation's form id for another prescription or another change", async () => {
    const { scid } = await givenPrescription(t, c);
    const { scid: otherScid } = await givenPrescription(t, c);
    const html = await confirmationOf(otherScid, 'cancel');
    for (const [target, action] of [[scid, 'cancel'], [otherScid, 'cease']] as const) {
      const before = await snapshotDatabase(t.deps.database);
      const response = await session.post(`${page(target)}/${action}`, postedFrom(html, { confirm: 'yes' }));
      expect(response.statusCode).toBe(409);
      expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    }
  });
});
