// Factories for the SSO and portal tests: minting an SSO link as a partner does, and a small
// cookie-keeping client of the portal over app.inject that reads each page's CSRF token the
// way a browser submits it (the hidden _csrf field of the form).
import type { LightMyRequestResponse } from 'fastify';
import { tokenHeaders, type GivenIntegration } from '../given.ts';
import type { TestApp } from '../test-app.ts';

/** POST /v1/sso as the partner, for `userId` (the integration's prescriber by default). */
export function mintSso(t: TestApp, g: GivenIntegration, body: unknown = { redirect_path: '/dashboard' }, headers: Record<string, string> = tokenHeaders(g)) {
  return t.app.inject({
    method: 'POST',
    url: `${t.deps.config.basePath}/v1/sso`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** The redirect_url of a successful SSO call; fails the test otherwise. */
export async function mintSsoUrl(t: TestApp, g: GivenIntegration, redirectPath: string, userId = g.userId): Promise<string> {
  const response = await mintSso(t, g, { redirect_path: redirectPath }, tokenHeaders(g, userId));
  if (response.statusCode !== 200) throw new Error(`sso failed: ${response.statusCode} ${response.body}`);
  return response.json().data.redirect_url as string;
}

/** The path and query of an absolute URL, as app.inject takes it. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** The hidden _csrf value of the first form on a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF field on the page:\n${html.slice(0, 500)}`);
  return match[1]!;
}

/** The hidden form_id (the one-time form id) of the first form on a page that has one, as fields to post. */
export function formIdFieldOf(html: string): Record<string, string> {
  const match = /name="form_id" value="([^"]+)"/.exec(html);
  return match ? { form_id: match[1]! } : {};
}

export interface PortalClient {
  /** The session cookie as the browser would send it (`name=value`). */
  cookie: string;
  /** Gets `path`, following the redirect that gives the new-prescription form's address its form id, as a browser does. */
  get(path: string): Promise<LightMyRequestResponse>;
  /** Posts a form with `fields` (add `_csrf` yourself, or use submit). */
  post(path: string, fields: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Loads `pagePath`, then posts its form's _csrf and form_id plus `fields` to `action` (the page's own path by default). */
  submit(pagePath: string, fields: Record<string, string>, action?: string): Promise<LightMyRequestResponse>;
}

export function portalClient(t: TestApp, cookie: string): PortalClient {
  const client: PortalClient = {
    cookie,
    async get(path) {
      const response = await t.app.inject({ method: 'GET', url: path, headers: { cookie } });
      const location = String(response.headers.location ?? '');
      // The new-prescription form's address gets its one-time id first; a browser follows that.
      if (response.statusCode !== 303 || location.split('?')[0] !== path.split('?')[0] || !/[?&]form_id=/.test(location)) return response;
      return t.app.inject({ method: 'GET', url: location, headers: { cookie } });
    },
    post: (path, fields) =>
      t.app.inject({ method: 'POST', url: path, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() }),
    async submit(pagePath, fields, action = pagePath.split('?')[0]!) {
      const page = await client.get(pagePath);
      if (page.statusCode !== 200) throw new Error(`GET ${pagePath}: ${page.statusCode} ${page.body.slice(0, 300)}`);
      return client.post(action, { _csrf: csrfOf(page.body), ...formIdFieldOf(page.body), ...fields });
    },
  };
  return client;
}

/** The session cookie /auth/sso set (`name=value`), or undefined when it set none. */
export function sessionCookieOf(response: LightMyRequestResponse): string | undefined {
  const cookie = response.cookies.find((c) => c.name.endsWith('erx_portal_session') && c.value !== '');
  return cookie ? `${cookie.name}=${cookie.value}` : undefined;
}

/** Mints a link for `redirectPath`, opens it and returns a client of the session it opened. */
export async function signIn(t: TestApp, g: GivenIntegration, redirectPath = '/dashboard', userId = g.userId): Promise<PortalClient & { landing: LightMyRequestResponse }> {
  const landing = await t.app.inject({ method: 'GET', url: pathOf(await mintSsoUrl(t, g, redirectPath, userId)) });
  const cookie = sessionCookieOf(landing);
  if (landing.statusCode !== 303 || !cookie) throw new Error(`sign-in failed: ${landing.statusCode} ${landing.body.slice(0, 300)}`);
  return { ...portalClient(t, cookie), landing };
}

/** The SCID a create redirected to. */
export function scidOfRedirect(response: LightMyRequestResponse): string {
  // The SCID, or erx's id for a prescription without one (a paper prescription no PDS took).
  const match = /\/prescriptions\/([A-Z0-9]{18}|[0-9a-f-]{36})\?created=1$/.exec(String(response.headers.location));
  if (response.statusCode !== 303 || !match) throw new Error(`not a created redirect: ${response.statusCode} ${response.headers.location} ${response.body.slice(0, 500)}`);
  return match[1]!;
}
