// GET /auth/sso and the portal session it opens: the token works once and for 300 s, the
// cookie (HttpOnly, host-only, SameSite=Lax over http in sandbox, SameSite=None; Secure with
// the __Host- prefix in production), sessions in the database (any instance serves them), the
// idle timeout, the 12-hour cap, signing out, and losing access mid-session.
import { afterAll, describe, expect, it } from 'vitest';
import { call, givenClient, givenUser, useTestApp } from '../given.ts';
import { productionEnv } from '../prescriptions/prescriptions-given.ts';
import { createTestApp, TEST_DATABASE_URL, type TestApp } from '../test-app.ts';
import { csrfOf, mintSsoUrl, pathOf, portalClient, sessionCookieOf, signIn } from '../portal/portal-given.ts';

const IDLE_SECONDS = 600;
let second: TestApp | undefined;

// A fresh client per test: tests move the clock past its tokens' hour.
const { t, c } = useTestApp({ each: true, env: { ERX_PORTAL_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS) } });
/** Another server on the same database (PostgreSQL); on SQLite the same one. */
async function secondInstance(): Promise<TestApp> {
  second ??= TEST_DATABASE_URL ? await createTestApp({ sameDatabaseAs: t, env: { ERX_PORTAL_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS) } }) : t;
  return second;
}
afterAll(async () => {
  if (second && second !== t) await second.close();
});

const open = (url: string, app = t) => app.app.inject({ method: 'GET', url: pathOf(url) });
const sessionCount = async () => (await t.deps.database.selectFrom('portal_sessions').select('session_hash').execute()).length;

async function expectRefusedPage(response: Awaited<ReturnType<typeof open>>, detail: RegExp) {
  expect(response.statusCode).toBe(401);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.body).toContain('<h1>Sign-in link refused</h1>');
  expect(response.body).toMatch(detail);
  expect(sessionCookieOf(response)).toBeUndefined();
}

describe('GET /auth/sso', () => {
  it('opens a session: an HttpOnly, host-only, SameSite=Lax cookie over http in sandbox, and a redirect to the path the token was minted for', async () => {
    const before = await sessionCount();
    const response = await open(await mintSsoUrl(t, c.g, '/dashboard?reserved_1=abc'));
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/dashboard?reserved_1=abc');
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^erx_portal_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await sessionCount()).toBe(before + 1);
    const cookie = sessionCookieOf(response)!;
    const stored = await t.deps.database.selectFrom('portal_sessions').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(cookie.split('=')[1]);
    const dashboard = await portalClient(t, cookie).get('/dashboard');
    expect(dashboard.statusCode).toBe(200);
    expect(dashboard.body).toContain('<h1>Dashboard</h1>');
  });

  it('goes where the token says, whatever the link\'s redirect parameter was changed to', async () => {
    const url = new URL(await mintSsoUrl(t, c.g, '/dashboard'));
    url.searchParams.set('redirect', 'https://evil.example/');
    expect((await open(url.href)).headers.location).toBe('/dashboard');
  });

  it('works once: the same link again shows an error page and opens no session', async () => {
    const url = await mintSsoUrl(t, c.g, '/dashboard');
    expect((await open(url)).statusCode).toBe(303);
    const before = await sessionCount();
    await expectRefusedPage(await open(url), /already been used/);
    expect(await sessionCount()).toBe(before);
  });

  it('works for 300 seconds', async () => {
    const fresh = await mintSsoUrl(t, c.g, '/dashboard');
    const stale = await mintSsoUrl(t, c.g, '/dashboard');
    t.clock.advanceSeconds(299);
    expect((await open(fresh)).statusCode).toBe(303);
    t.clock.advanceSeconds(2);
    const before = await sessionCount();
    await expectRefusedPage(await open(stale), /expired/);
    expect(await sessionCount()).toBe(before);
  });

  it.each([
    ['an unknown token', 'token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a malformed token', 'token=%3Cscript%3E'],
    ['no token', 'redirect=%2Fdashboard'],
  ])('refuses %s with an error page', async (_case, query) => {
    const response = await t.app.inject({ method: 'GET', url: `/auth/sso?${query}` });
    await expectRefusedPage(response, /not valid/);
    expect(response.body).not.toContain('<script>');
  });

  it('opens one session when the same link is opened twice at once', async () => {
    const url = await mintSsoUrl(t, c.g, '/dashboard');
    const before = await sessionCount();
    const other = await secondInstance();
    const answers = await Promise.all([open(url), open(url, other), open(url)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([303, 401, 401]);
    expect(await sessionCount()).toBe(before + 1);
  });

  it('refuses a user disabled since the link was minted, and leaves the token as it was', async () => {
    const user = await givenUser(t, c.g.organizationId, ['provider']);
    const url = await mintSsoUrl(t, c.g, '/dashboard', user.user_id);
    expect((await call(t, 'PUT', c.userUrl(user.user_id, '/disable'), c.owner)).statusCode).toBe(200);
    await expectRefusedPage(await open(url), /can no longer sign in/);
    const token = new URL(url).searchParams.get('token')!;
    const rows = await t.deps.database.selectFrom('sso_tokens').select(['user_id', 'used_at']).where('user_id', '=', user.user_id).execute();
    expect(rows).toEqual([{ user_id: user.user_id, used_at: null }]);
    expect(token).toHaveLength(43);
  });

  it('in production sets a __Host- cookie with Secure and SameSite=None, so the portal works inside a partner\'s iframe', async () => {
    const production = await createTestApp({ env: { ...productionEnv(), ERX_PUBLIC_URL: 'https://erx.example.org' } });
    try {
      const client = await givenClient(production);
      const response = await open(await mintSsoUrl(production, client.g, '/dashboard'), production);
      expect(response.statusCode).toBe(303);
      expect(String(response.headers['set-cookie'])).toMatch(/^__Host-erx_portal_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=None$/);
    } finally {
      await production.close();
    }
  });
});

describe('portal sessions', () => {
  it('live in the database: another instance serves them', async () => {
    const session = await signIn(t, c.g);
    expect((await portalClient(await secondInstance(), session.cookie).get('/dashboard')).statusCode).toBe(200);
  });

  it('end after the idle timeout (a setting); each request starts it again', async () => {
    const session = await signIn(t, c.g);
    for (let i = 0; i < 3; i++) {
      t.clock.advanceSeconds(IDLE_SECONDS - 5);
      expect((await session.get('/dashboard')).statusCode).toBe(200);
    }
    t.clock.advanceSeconds(IDLE_SECONDS + 1);
    const ended = await session.get('/dashboard');
    expect(ended.statusCode).toBe(401);
    expect(ended.body).toContain('Open the portal again from your clinical software');
    expect(String(ended.headers['set-cookie'])).toMatch(/^erx_portal_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
  });

  it('end 12 hours after sign-in, however active', async () => {
    const session = await signIn(t, c.g);
    const step = IDLE_SECONDS - 1;
    const steps = Math.floor((12 * 3600) / step);
    for (let i = 0; i < steps; i++) {
      t.clock.advanceSeconds(step);
      expect((await session.get('/dashboard')).statusCode).toBe(200);
    }
    t.clock.advanceSeconds(12 * 3600 - steps * step + 1);
    expect((await session.get('/dashboard')).statusCode).toBe(401);
  });

  it('end when their user is disabled', async () => {
    const user = await givenUser(t, c.g.organizationId, ['provider']);
    const session = await signIn(t, c.g, '/dashboard', user.user_id);
    expect((await session.get('/dashboard')).statusCode).toBe(200);
    expect((await call(t, 'PUT', c.userUrl(user.user_id, '/disable'), c.owner)).statusCode).toBe(200);
    expect((await session.get('/dashboard')).statusCode).toBe(401);
  });

  it('end on signing out, on every instance', async () => {
    const session = await signIn(t, c.g);
    const signedOut = await session.post('/auth/sign-out', { _csrf: csrfOf((await session.get('/dashboard')).body) });
    expect(signedOut.statusCode).toBe(200);
    expect(signedOut.body).toContain('<h1>Signed out</h1>');
    expect(String(signedOut.headers['set-cookie'])).toMatch(/^erx_portal_session=; Max-Age=0;/);
    expect((await session.get('/dashboard')).statusCode).toBe(401);
    expect((await portalClient(await secondInstance(), session.cookie).get('/dashboard')).statusCode).toBe(401);
  });
});
