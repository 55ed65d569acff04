// Prescriber MFA through HTTP (app.inject, no JavaScript): when the factor is asked (the
// organization's policy, by mode by default; enrol before any page, keeping the SSO landing's
// path; once per session, again after 12 hours), TOTP (drift, single use), recovery codes
// (single use), the per-user lockout, step-up pages (removing a factor, new recovery codes),
// the owner's reset page with its security cases (wrong role, another organization's user,
// oneself, bad input, CSRF), the passkey routes' refusals, read user's mfa_enrolled, and the
// audit entries, which hold no secret.
import { describe, expect, it } from 'vitest';
import { setOrganizationMfaPolicy } from '../../src/mfa/index.ts';
import { createTestApp } from '../test-app.ts';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic, givenSecondPrescriber, productionEnv, send } from '../prescriptions/prescriptions-given.ts';
import { csrfOf, signIn } from '../portal/portal-given.ts';
import { enrolTotp, presentTotp, signInEnrolled, totpCode, totpSecretOn } from './mfa-given.ts';

const { t, c } = useTestApp({ each: true }, async (t) => {
  const c = await givenClinic(t);
  await setOrganizationMfaPolicy(t.features.mfa, c.g.organizationId, 'required');
  return { c };
});

const patientPath = () => `/dashboard/patients/${c.patientId}`;
const auditOf = async (action: string) =>
  t.deps.database.selectFrom('audit_entries').select(['action', 'outcome', 'target_user_id', 'detail']).where('organization_id', '=', c.g.organizationId).where('action', '=', action).orderBy('seq').execute();

describe('when the factor is asked', () => {
  it('enrol before any other page, keeping the landing path; patient pages and the JSON under /dashboard and /embed are refused until then', async () => {
    const session = await signIn(t, c.g, patientPath());
    expect(session.landing.headers.location).toBe(patientPath());
    const page = await session.get(patientPath());
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe(`/dashboard/mfa?next=${encodeURIComponent(patientPath())}`);
    for (const path of ['/dashboard', `/embed/patients/${c.patientId}/prescriptions`, '/dashboard/prescriptions/approval']) {
      expect((await session.get(path)).statusCode, path).toBe(303);
    }
    for (const frame of ['dashboard', 'embed']) {
      const json = await session.get(`/${frame}/medicines/search?search=amox`);
      expect(json.statusCode).toBe(401);
      expect(json.json()).toEqual({ error: 'factor_required', detail: expect.stringContaining('second factor') });
    }
    const enrolPage = await session.get(page.headers.location as string);
    expect(enrolPage.statusCode).toBe(200);
    expect(enrolPage.body).not.toContain('Wood');
    expect(enrolPage.headers['content-security-policy']).toContain("script-src 'self'; connect-src 'self';");
    const { confirmed } = await enrolTotp(t, session);
    // First factor: the recovery codes next, then back to the patient.
    expect(confirmed.headers.location).toBe(`/dashboard/mfa/recovery-codes?next=${encodeURIComponent('/dashboard')}`);
    const codes = await session.get(confirmed.headers.location as string);
    expect(codes.body.match(/<li><code>[a-z2-9]{5}-[a-z2-9]{5}<\/code><\/li>/g)).toHaveLength(10);
    expect((await session.get(confirmed.headers.location as string)).body).not.toMatch(/<li><code>/);
    expect((await session.get(patientPath())).statusCode).toBe(200);
    // Only the factor pages load the script.
    expect((await session.get(patientPath())).headers['content-security-policy']).not.toContain('script-src');
  });

  it('a later session presents the factor once; after 12 hours it is asked again', async () => {
    const first = await signInEnrolled(t, c.g, c.g.userId);
    t.clock.advanceSeconds(60);
    const second = await signIn(t, c.g, patientPath());
    expect((await second.get(patientPath())).statusCode).toBe(303);
    const page = await second.get('/dashboard/mfa');
    expect(page.body).toContain('Authenticator code');
    expect(page.body).not.toContain('totp-secret');
    const presented = await second.post('/dashboard/mfa/totp', { _csrf: csrfOf(page.body), code: totpCode(first.secret, t.clock.now()), next: patientPath() });
    expect(presented.statusCode).toBe(303);
    expect(presented.headers.location).toBe(patientPath());
    expect((await second.get(patientPath())).statusCode).toBe(200);
    // The session itself ends at 12 hours; a factor presented 12 hours ago is not enough either way.
    await t.deps.database.updateTable('portal_sessions').set({ factor_presented_at: new Date(t.clock.now().getTime() - 12 * 3600_000 - 1000).toISOString() }).execute();
    expect((await second.get(patientPath())).statusCode).toBe(303);
  });

  it('sandbox organizations default to optional (users without a factor go straight in); production organizations to required', async () => {
    const sandbox = await givenClinic(t);
    expect((await (await signIn(t, sandbox.g, patientPath())).get('/dashboard')).statusCode).toBe(200);
    const production = await createTestApp({ env: productionEnv() });
    try {
      const clinic = await givenClinic(production);
      const session = await signIn(production, clinic.g, '/dashboard');
      expect((await session.get('/dashboard')).statusCode).toBe(303);
    } finally {
      await production.close();
    }
  });

  it('an optional organization still asks an enrolled user for their factor, and a step-up asks an unenrolled one to enrol', async () => {
    await setOrganizationMfaPolicy(t.features.mfa, c.g.organizationId, 'optional');
    const enrolled = await signInEnrolled(t, c.g, c.g.userId);
    const again = await signIn(t, c.g, '/dashboard');
    expect((await again.get('/dashboard')).statusCode).toBe(303);
    const other = await signIn(t, c.g, '/dashboard', await givenSecondPrescriber(t, c));
    expect((await other.get('/dashboard')).statusCode).toBe(200);
    const csrf = csrfOf((await other.get('/dashboard')).body);
    const stepUp = await other.post('/dashboard/mfa/recovery-codes', { _csrf: csrf });
    expect(stepUp.statusCode).toBe(303);
    expect(stepUp.headers.location).toBe('/dashboard/mfa?step_up=1');
    expect((await other.get('/dashboard/mfa?step_up=1')).body).toContain('Set up your second factor');
    expect(enrolled.secret).toMatch(/^[A-Z2-7]{32}$/);
  });
});

describe('TOTP and recovery codes', () => {
  it('accepts one step of drift, refuses two, and refuses a code the second time', async () => {
    const { secret } = await signInEnrolled(t, c.g, c.g.userId);
    t.clock.advanceSeconds(90);
    const session = await signIn(t, c.g, '/dashboard');
    expect((await presentTotp(t, session, secret, { stepOffset: 2 })).statusCode).toBe(400);
    expect((await presentTotp(t, session, secret, { stepOffset: -2 })).statusCode).toBe(400);
    const late = await presentTotp(t, session, secret, { stepOffset: -1 });
    expect(late.statusCode).toBe(303);
    const other = await signIn(t, c.g, '/dashboard');
    const replayed = await presentTotp(t, other, secret, { stepOffset: -1 });
    expect(replayed.statusCode).toBe(400);
    expect(replayed.body).toContain('That code was not accepted');
    // An earlier step than the one used is refused too; a later one works.
    expect((await presentTotp(t, other, secret, { stepOffset: -1 })).statusCode).toBe(400);
    expect((await presentTotp(t, other, secret, { stepOffset: 1 })).statusCode).toBe(303);
  });

  it('a recovery code works once, in any case and spacing; its use is audited without the code', async () => {
    const session = await signIn(t, c.g, '/dashboard');
    const { confirmed } = await enrolTotp(t, session);
    const codes = [...(await session.get(confirmed.headers.location as string)).body.matchAll(/<li><code>([a-z2-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    const later = await signIn(t, c.g, '/dashboard');
    const page = await later.get('/dashboard/mfa');
    const used = await later.post('/dashboard/mfa/recovery', { _csrf: csrfOf(page.body), code: ` ${codes[3]!.toUpperCase()} ` });
    expect(used.statusCode).toBe(303);
    const third = await signIn(t, c.g, '/dashboard');
    const again = await third.post('/dashboard/mfa/recovery', { _csrf: csrfOf((await third.get('/dashboard/mfa')).body), code: codes[3]! });
    expect(again.statusCode).toBe(400);
    expect((await auditOf('mfa.recovery_used')).map((e) => [e.outcome, e.target_user_id])).toEqual([['success', c.g.userId]]);
    const everything = JSON.stringify(await t.deps.database.selectFrom('audit_entries').selectAll().execute());
    for (const code of codes) expect(everything).not.toContain(code);
  });

  it('5 wrong codes in 15 minutes lock that user alone for 15 minutes; refused and locked are audited and counted', async () => {
    const user = await signInEnrolled(t, c.g, c.g.userId);
    const second = await givenSecondPrescriber(t, c);
    const secondUser = await signInEnrolled(t, c.g, second);
    t.clock.advanceSeconds(60);
    const session = await signIn(t, c.g, '/dashboard');
    const wrong = totpCode(user.secret, t.clock.now()) === '123456' ? '654321' : '123456';
    for (let i = 1; i <= 4; i++) expect((await presentTotp(t, session, user.secret, { code: wrong })).statusCode).toBe(400);
    const fifth = await presentTotp(t, session, user.secret, { code: wrong });
    expect(fifth.statusCode).toBe(429);
    expect(fifth.headers['retry-after']).toBe('900');
    const sixth = await presentTotp(t, session, user.secret);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.body).toContain('locked');
    // Recovery codes share the lock; another user is not affected.
    const otherSession = await signIn(t, c.g, '/dashboard', second);
    expect((await presentTotp(t, otherSession, secondUser.secret)).statusCode).toBe(303);
    t.clock.advanceSeconds(15 * 60);
    expect((await presentTotp(t, session, user.secret)).statusCode).toBe(303);
    const verifications = (await auditOf('mfa.verify')).filter((e) => e.target_user_id === c.g.userId && e.outcome === 'refused').map((e) => JSON.parse(e.detail!).reason);
    expect(verifications).toEqual(['totp:wrong', 'totp:wrong', 'totp:wrong', 'totp:wrong', 'totp:wrong', 'totp:locked']);
  });

  it('refuses bad input on the code forms with a page, changing nothing', async () => {
    const session = await signIn(t, c.g, '/dashboard');
    const csrf = csrfOf((await session.get('/dashboard/mfa')).body);
    expect((await session.post('/dashboard/mfa/enrol/totp', { _csrf: csrf, code: '1'.repeat(41) })).statusCode).toBe(400);
    expect((await session.post('/dashboard/mfa/enrol/totp', { _csrf: csrf, code: 'abcdef' })).body).toContain('That code did not match');
    expect((await session.post('/dashboard/mfa/totp', { _csrf: csrf, code: '123456', next: 'https://evil.example/' })).statusCode).toBe(400);
    expect(await t.deps.database.selectFrom('mfa_factors').select('id').where('organization_id', '=', c.g.organizationId).execute()).toEqual([]);
  });

  it('never returns to another site: next is a portal path of the frame', async () => {
    const { secret } = await signInEnrolled(t, c.g, c.g.userId);
    t.clock.advanceSeconds(60);
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const session = await signIn(t, c.g, '/dashboard');
      const page = await session.get('/dashboard/mfa');
      const answer = await session.post('/dashboard/mfa/totp', { _csrf: csrfOf(page.body), code: totpCode(secret, t.clock.now()), next });
      expect(answer.headers.location).toBe('/dashboard');
      t.clock.advanceSeconds(30);
    }
  });
});

describe('step-up pages', () => {
  it('removing a factor and new recovery codes ask for a factor within 5 minutes; another user cannot remove mine', async () => {
    const session = await signInEnrolled(t, c.g, c.g.userId);
    const [factor] = await t.deps.database.selectFrom('mfa_factors').select('id').where('user_id', '=', c.g.userId).execute();
    t.clock.advanceSeconds(6 * 60);
    const page = await session.get('/dashboard/mfa/factors');
    expect(page.statusCode).toBe(200);
    const removal = `/dashboard/mfa/factors/${factor!.id}/remove`;
    const asked = await t.app.inject({ method: 'POST', url: removal, headers: { cookie: session.cookie, referer: 'http://localhost/dashboard/mfa/factors', 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${encodeURIComponent(csrfOf(page.body))}` });
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe(`/dashboard/mfa?next=${encodeURIComponent('/dashboard/mfa/factors')}&step_up=1`);
    expect(await t.deps.database.selectFrom('mfa_factors').select('id').where('organization_id', '=', c.g.organizationId).execute()).toHaveLength(1);
    const stepped = await presentTotp(t, session, session.secret, { stepUp: true });
    expect(stepped.statusCode).toBe(303);
    expect((await auditOf('mfa.step_up')).map((e) => e.target_user_id)).toEqual([c.g.userId]);
    const codes = await session.post('/dashboard/mfa/recovery-codes', { _csrf: csrfOf(page.body) });
    expect(codes.body.match(/<li><code>/g)).toHaveLength(10);
    // Another user of the organization, with their own fresh factor, finds no such factor of theirs.
    const other = await signInEnrolled(t, c.g, await givenSecondPrescriber(t, c));
    const refused = await other.post(removal, { _csrf: csrfOf((await other.get('/dashboard/mfa/factors')).body) });
    expect(refused.statusCode).toBe(404);
    expect((await session.post(removal, { _csrf: csrfOf(page.body) })).statusCode).toBe(303);
    expect(await t.deps.database.selectFrom('mfa_factors').select('id').where('user_id', '=', c.g.userId).execute()).toEqual([]);
    expect((await auditOf('mfa.factor_remove')).map((e) => e.target_user_id)).toEqual([c.g.userId]);
  });

  it('adding a factor needs the session to have presented one', async () => {
    const { secret } = await signInEnrolled(t, c.g, c.g.userId);
    t.clock.advanceSeconds(60);
    const session = await signIn(t, c.g, '/dashboard');
    expect((await session.get('/dashboard/mfa/enrol')).statusCode).toBe(303);
    const csrf = csrfOf((await session.get('/dashboard/mfa')).body);
    expect((await session.post('/dashboard/mfa/enrol/passkey/options', {})).statusCode).toBe(403);
    const options = await t.app.inject({ method: 'POST', url: '/dashboard/mfa/enrol/passkey/options', headers: { cookie: session.cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, payload: '{}' });
    expect(options.statusCode).toBe(401);
    expect(secret).toBeTruthy();
  });
});

describe('the passkey routes', () => {
  async function json(session: { cookie: string }, csrf: string, url: string, body: unknown) {
    return t.app.inject({ method: 'POST', url, headers: { cookie: session.cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  }

  it('refuse an answer without a live challenge, a bad body and a forged registration; none is a factor', async () => {
    const session = await signIn(t, c.g, '/dashboard');
    const csrf = csrfOf((await session.get('/dashboard/mfa')).body);
    const noChallenge = await json(session, csrf, '/dashboard/mfa/enrol/passkey/verify', { response: { id: 'x' } });
    expect(noChallenge.statusCode).toBe(400);
    expect((await json(session, csrf, '/dashboard/mfa/enrol/passkey/verify', { response: {}, name: 'x'.repeat(61) })).statusCode).toBe(400);
    const options = await json(session, csrf, '/dashboard/mfa/enrol/passkey/options', {});
    expect(options.statusCode).toBe(200);
    expect(options.json()).toMatchObject({ rp: { id: new URL(t.deps.config.portalUrl).hostname }, authenticatorSelection: { userVerification: 'required' } });
    const forged = await json(session, csrf, '/dashboard/mfa/enrol/passkey/verify', { response: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'oA' }, clientExtensionResults: {} } });
    expect(forged.statusCode).toBe(400);
    // The challenge was spent by the forged answer.
    expect((await json(session, csrf, '/dashboard/mfa/enrol/passkey/verify', { response: {} })).json().error).toBe('expired');
    expect(await t.deps.database.selectFrom('mfa_factors').select('id').where('organization_id', '=', c.g.organizationId).execute()).toEqual([]);
    // A user with no passkey has no authentication options.
    await enrolTotp(t, session);
    expect((await json(session, csrf, '/dashboard/mfa/passkey/options', {})).statusCode).toBe(404);
  });

  it('need the CSRF token of the session', async () => {
    const session = await signIn(t, c.g, '/dashboard');
    const other = await signIn(t, c.g, '/dashboard');
    const othersCsrf = csrfOf((await other.get('/dashboard/mfa')).body);
    expect((await json(session, othersCsrf, '/dashboard/mfa/enrol/passkey/options', {})).statusCode).toBe(403);
    expect((await json(session, othersCsrf, '/dashboard/mfa/passkey/verify', { response: {} })).statusCode).toBe(403);
  });
});

describe("an owner's reset of another user's factors", () => {
  it('wrong role: 403; the list and the reset need manage_users', async () => {
    const prescriber = await signInEnrolled(t, c.g, c.g.userId);
    expect((await prescriber.get('/dashboard/users/mfa')).statusCode).toBe(403);
    const refused = await prescriber.post(`/dashboard/users/${c.g.ownerId}/mfa-reset`, { _csrf: csrfOf((await prescriber.get('/dashboard')).body) });
    expect(refused.statusCode).toBe(403);
  });

  it("resets another user (fresh factor needed), not oneself, not another organization's user, not an unknown id; CSRF required", async () => {
    const target = await signInEnrolled(t, c.g, c.g.userId);
    const owner = await signInEnrolled(t, c.g, c.g.ownerId);
    const list = await owner.get('/dashboard/users/mfa');
    expect(list.statusCode).toBe(200);
    const csrf = csrfOf(list.body);
    expect((await owner.post(`/dashboard/users/${c.g.userId}/mfa-reset`, {})).statusCode).toBe(403);
    expect((await owner.post(`/dashboard/users/${c.g.ownerId}/mfa-reset`, { _csrf: csrf })).statusCode).toBe(403);
    const elsewhere = await givenClinic(t);
    const foreign = await signInEnrolled(t, elsewhere.g, elsewhere.g.userId);
    expect((await owner.post(`/dashboard/users/${elsewhere.g.userId}/mfa-reset`, { _csrf: csrf })).statusCode).toBe(404);
    expect((await owner.post('/dashboard/users/not-a-user/mfa-reset', { _csrf: csrf })).statusCode).toBe(404);
    // Bad input: an id past the portal's address limit.
    expect((await owner.post(`/dashboard/users/${'x'.repeat(3000)}/mfa-reset`, { _csrf: csrf })).statusCode).toBe(414);
    expect(await t.deps.database.selectFrom('mfa_factors').select('user_id').where('user_id', '=', elsewhere.g.userId).execute()).toHaveLength(1);
    expect((await foreign.get('/dashboard')).statusCode).toBe(200);
    // Six minutes on, the reset asks for the owner's factor again first.
    t.clock.advanceSeconds(6 * 60);
    const asked = await owner.post(`/dashboard/users/${c.g.userId}/mfa-reset`, { _csrf: csrf });
    expect(asked.headers.location).toMatch(/^\/dashboard\/mfa\?.*step_up=1/);
    expect((await presentTotp(t, owner, owner.secret, { stepUp: true })).statusCode).toBe(303);
    const reset = await owner.post(`/dashboard/users/${c.g.userId}/mfa-reset`, { _csrf: csrf });
    expect(reset.statusCode).toBe(303);
    expect(reset.headers.location).toBe('/dashboard/users/mfa?reset=1');
    expect(await t.deps.database.selectFrom('mfa_factors').select('id').where('user_id', '=', c.g.userId).execute()).toEqual([]);
    // Their session ended; at the next sign-in they are told, and enrol again.
    expect((await target.get('/dashboard')).statusCode).toBe(401);
    const next = await signIn(t, c.g, '/dashboard');
    expect((await next.get('/dashboard/mfa')).body).toContain('Your sign-in factors were reset by an administrator');
    expect((await auditOf('mfa.reset')).map((e) => [e.outcome, e.target_user_id])).toEqual([['success', c.g.userId]]);
  });
});

describe('read user (API)', () => {
  it('adds mfa_enrolled beside the vendor fields', async () => {
    const read = () => send(t, 'GET', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}`, c.headers);
    expect((await read()).json().data.mfa_enrolled).toBe(false);
    await signInEnrolled(t, c.g, c.g.userId);
    expect((await read()).json().data.mfa_enrolled).toBe(true);
    const queueManager = await givenUser(t, c.g.organizationId, ['rx_queue_manager']);
    expect((await send(t, 'GET', `/v1/organizations/${c.g.organizationId}/users/${queueManager.user_id}`, c.headers)).json().data.mfa_enrolled).toBe(false);
  });
});

describe('metrics', () => {
  it('count verifications by method and outcome', async () => {
    const calls: string[] = [];
    t.features.mfa.metrics = { ...t.features.mfa.metrics, recordMfaVerification: (method, outcome) => void calls.push(`${method}:${outcome}`) };
    const { secret } = await signInEnrolled(t, c.g, c.g.userId);
    t.clock.advanceSeconds(60);
    const session = await signIn(t, c.g, '/dashboard');
    await presentTotp(t, session, secret, { code: totpCode(secret, t.clock.now()) === '000000' ? '111111' : '000000' });
    await presentTotp(t, session, secret);
    expect(calls).toEqual(['totp:refused', 'totp:success']);
    expect(totpSecretOn(`id="totp-secret">${secret}<`)).toBe(secret);
  });
});
