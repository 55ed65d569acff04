// Who may see and do what in the portal, over every registered session route (so pages added
// later are covered without editing this file): no session is a 401 page, another
// organization's patient or prescription a 404 page, a POST without its session's CSRF token a
// 403; each changes nothing. And the headers every response carries: the CSP whose
// frame-ancestors are the partner's frame origins, read afresh on every request.
import { describe, expect, it } from 'vitest';
import type { RouteCatalogEntry } from '../../src/auth/index.ts';
import { setPartnerFrameOrigins } from '../../src/onboarding/index.ts';
import { PRESCRIPTION_CHANGES } from '../../src/prescriptions/index.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, givenSecondPrescriber } from '../prescriptions/prescriptions-given.ts';
import { signInEnrolled } from '../mfa/mfa-given.ts';
import { prepareDraftAs, sessionWithRoles } from './approval-given.ts';
import { csrfOf, formIdFieldOf, mintSsoUrl, pathOf, signIn, type PortalClient } from './portal-given.ts';

let scid: string;
/** A paper prescription: the PDF route serves only those. */
let paperScid: string;
let otherScid: string;
let draftId: string;

const { t, c, other, session, manager, owner, stepUp } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const other = await givenClinic(t);
  scid = (await givenPrescription(t, c)).scid;
  paperScid = (await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined })).reference;
  otherScid = (await givenPrescription(t, other)).scid;
  const manager = await sessionWithRoles(t, c, ['rx_queue_manager']);
  draftId = await prepareDraftAs(manager, c, c.g.userId);
  const owner = await sessionWithRoles(t, c, ['owner', 'admin']);
  // A prescriber who presented a factor just now, for the routes that ask a step-up (else the factor page comes first).
  const stepUp = await signInEnrolled(t, c.g, await givenSecondPrescriber(t, c));
  return { c, other, session: await signIn(t, c.g), manager, owner, stepUp };
});

const sessionRoutes = (): RouteCatalogEntry[] => t.app.routeCatalog.filter((entry) => entry.auth.kind === 'session');
const concrete = (url: string, ids = { patientId: c.patientId, scid: url.endsWith('/pdf') ? paperScid : scid }) =>
  url.replace(':patient_id', ids.patientId).replace(':scid', ids.scid).replace(':draft_id', draftId).replace(':factor_id', 'no-such-factor').replace(':user_id', c.g.userId);
/** A session whose role may use the route: the prescriber's, the queue manager's for preparing drafts, an owner's for managing users. */
const sessionFor = (route: RouteCatalogEntry): PortalClient => {
  const capability = route.auth.kind === 'session' ? route.auth.capability : undefined;
  if (route.auth.kind === 'session' && route.auth.factor === 'fresh' && capability === 'portal:prescribe') return stepUp;
  return capability === 'portal:prepare_draft' ? manager : capability === 'manage_users' ? owner : session;
};
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function send(route: RouteCatalogEntry, headers: Record<string, string>, ids?: { patientId: string; scid: string }, fields: Record<string, string> = {}) {
  const url = concrete(route.url, ids);
  if (route.method === 'GET') return t.app.inject({ method: 'GET', url, headers });
  return t.app.inject({ method: 'POST', url, headers: { ...headers, ...FORM }, payload: new URLSearchParams(fields).toString() });
}

async function expectPageUnchanged(request: () => ReturnType<typeof send>, status: number, text: string) {
  const before = await snapshotDatabase(t.deps.database);
  const response = await request();
  expect(response.statusCode, `${response.body.slice(0, 300)}`).toBe(status);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.body).toContain(text);
  expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  return response;
}

describe('the session routes', () => {
  it('include every path the vendor documents, in both frames', () => {
    const urls = sessionRoutes().map((r) => `${r.method} ${r.url}`);
    const prescriptions = (frame: string) => `/${frame}/patients/:patient_id/prescriptions`;
    expect(urls).toEqual(
      expect.arrayContaining([
        'GET /dashboard',
        'GET /dashboard/patients/:patient_id',
        ...['dashboard', 'embed'].flatMap((frame) => [
          `GET ${prescriptions(frame)}`,
          `POST ${prescriptions(frame)}`,
          `GET ${prescriptions(frame)}/:scid`,
          `GET ${prescriptions(frame)}/:scid/pdf`,
          ...PRESCRIPTION_CHANGES.map((action) => `POST ${prescriptions(frame)}/:scid/${action}`),
          `POST ${prescriptions(frame)}/:scid/paper`,
          `GET /${frame}/prescriptions/approval`,
        ]),
      ]),
    );
    expect(t.app.routeCatalog.filter((r) => r.url === '/auth/sso').map((r) => r.auth.kind)).toEqual(['public']);
  });

  it('answer a 401 page and change nothing without a session cookie', async () => {
    for (const route of sessionRoutes()) {
      const response = await expectPageUnchanged(() => send(route, {}), 401, 'Open the portal again from your clinical software');
      expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'$/);
    }
  });

  it('answer a 401 page, clear the cookie and change nothing with an unknown session', async () => {
    for (const route of sessionRoutes()) {
      const response = await expectPageUnchanged(() => send(route, { cookie: 'erx_portal_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), 401, 'Open the portal again');
      expect(String(response.headers['set-cookie'])).toMatch(/^erx_portal_session=; Max-Age=0/);
    }
  });

  it("answer a 404 page and change nothing for another organization's patient, in every page and form", async () => {
    const foreign = { patientId: other.patientId, scid: otherScid };
    const withIds = sessionRoutes().filter((route) => route.url.includes(':patient_id'));
    expect(withIds.length).toBeGreaterThan(10);
    for (const route of withIds) {
      const client = sessionFor(route);
      const csrf = csrfOf((await client.get('/dashboard')).body);
      const fields = { _csrf: csrf, confirm: 'yes', medicine: 'pbs:2622B', quantity: '5', send_to: 'patient-sms' };
      await expectPageUnchanged(() => send(route, { cookie: client.cookie }, foreign, fields), 404, `No patient ${other.patientId} in this organization`);
    }
  });

  it("answer a 404 page and change nothing for another organization's SCID under this organization's patient", async () => {
    for (const route of sessionRoutes().filter((r) => r.url.includes(':scid'))) {
      const client = sessionFor(route);
      const csrf = csrfOf((await client.get('/dashboard')).body);
      await expectPageUnchanged(() => send(route, { cookie: client.cookie }, { patientId: c.patientId, scid: otherScid }, { _csrf: csrf, confirm: 'yes' }), 404, `No prescription with SCID ${otherScid}`);
    }
  });
});

describe('CSRF tokens', () => {
  const createFields = { medicine: 'pbs:2622B', quantity: '5', send_to: 'patient-sms', intent: 'create' };

  it('are required on every form post: without one, a 403 page and nothing written', async () => {
    for (const route of sessionRoutes().filter((r) => r.method === 'POST')) {
      await expectPageUnchanged(() => send(route, { cookie: sessionFor(route).cookie }, undefined, { ...createFields, confirm: 'yes' }), 403, 'Form refused');
    }
  });

  it("are bound to their session: another session's token, or an altered one, is a 403 and creates nothing", async () => {
    const otherSession = await signIn(t, c.g);
    const othersToken = csrfOf((await otherSession.get('/dashboard')).body);
    const form = `/embed/patients/${c.patientId}/prescriptions`;
    await expectPageUnchanged(() => session.post(form, { ...createFields, _csrf: othersToken }), 403, 'Form refused');
    const ownPage = (await session.get(form)).body;
    const own = csrfOf(ownPage);
    await expectPageUnchanged(() => session.post(form, { ...createFields, ...formIdFieldOf(ownPage), _csrf: `${own.slice(0, -2)}xx` }), 403, 'Form refused');
    expect((await session.post(form, { ...createFields, ...formIdFieldOf(ownPage), _csrf: own })).statusCode).toBe(303);
  });
});

describe('the Content-Security-Policy', () => {
  const ancestorsOf = (response: { headers: Record<string, unknown> }) => /frame-ancestors (.*)$/.exec(String(response.headers['content-security-policy']))?.[1];

  it("lists the session's partner's frame origins on every response, read afresh on each request; none refuses framing", async () => {
    const page = `/embed/patients/${c.patientId}/prescriptions/${scid}`;
    expect(ancestorsOf(await session.get(page))).toBe("'none'");
    await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, ['https://pms.example.com', 'http://127.0.0.1:8080']);
    expect(ancestorsOf(await session.get(page))).toBe('https://pms.example.com http://127.0.0.1:8080');
    // Error pages of a session too, and the sign-in redirect (the frame's first response).
    expect(ancestorsOf(await session.get(`/embed/patients/${other.patientId}/prescriptions`))).toBe('https://pms.example.com http://127.0.0.1:8080');
    const landing = await t.app.inject({ method: 'GET', url: pathOf(await mintSsoUrl(t, c.g, page)) });
    expect(landing.statusCode).toBe(303);
    expect(ancestorsOf(landing)).toBe('https://pms.example.com http://127.0.0.1:8080');
    // Another partner's users are not framed by these origins.
    const othersSession = await signIn(t, other.g);
    expect(ancestorsOf(await othersSession.get('/dashboard'))).toBe("'none'");
    await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, []);
    expect(ancestorsOf(await session.get(page))).toBe("'none'");
  });

  it('refuses framing of every session page outside /embed/, whatever the partner lists; /embed/ pages keep the partner\'s origins', async () => {
    await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, ['https://pms.example.com']);
    try {
      for (const route of sessionRoutes().filter((r) => r.method === 'GET')) {
        const response = await sessionFor(route).get(concrete(route.url));
        expect(response.statusCode, route.url).toBe(200);
        if (route.url.startsWith('/embed/')) {
          expect(ancestorsOf(response), route.url).toBe('https://pms.example.com');
          expect(response.headers['x-frame-options'], route.url).toBeUndefined();
        } else {
          expect(ancestorsOf(response), route.url).toBe("'none'");
          expect(response.headers['x-frame-options'], route.url).toBe('DENY');
        }
      }
      // A sign-in link to the dashboard redirects unframed; one to /embed/ keeps the origins.
      const toDashboard = await t.app.inject({ method: 'GET', url: pathOf(await mintSsoUrl(t, c.g, '/dashboard')) });
      expect(toDashboard.statusCode).toBe(303);
      expect([ancestorsOf(toDashboard), toDashboard.headers['x-frame-options']]).toEqual(["'none'", 'DENY']);
    } finally {
      await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, []);
    }
  });

  it('refuses framing of public pages and a refused sign-in link', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/auth/sso?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(ancestorsOf(unknown)).toBe("'none'");
    expect(ancestorsOf(await t.app.inject({ method: 'GET', url: '/assets/portal.css' }))).toBe("'none'");
    expect(unknown.headers['x-frame-options']).toBe('DENY');
  });

  it('comes with nosniff, and no caching of session pages', async () => {
    const response = await session.get('/dashboard');
    expect(response.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    expect(response.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; /);
  });

  it('leaves the JSON API without one', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    expect(response.headers['content-security-policy']).toBeUndefined();
  });
});
