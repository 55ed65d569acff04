// Signing in and out of the portal, and its stylesheet. /auth/sso is where a partner's SSO
// link lands: it spends the token, sets the session cookie and redirects to the token's
// redirect_path; a used, expired or unknown token shows an error page and opens nothing.
import fs from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../route-module.ts';
import { endPortalSession, signInWithSsoToken, type SignInRefusal, type SsoContext } from '../sso/index.ts';
import type { Config } from '../config.ts';
import { renderErrorPage } from './portal-context.ts';
import { sessionCookiePolicy } from './portal-security.ts';

const REFUSALS: Readonly<Record<SignInRefusal, string>> = {
  unknown: 'This sign-in link is not valid. Open the portal again from your clinical software.',
  used: 'This sign-in link has already been used: each link works once. Open the portal again from your clinical software.',
  expired: 'This sign-in link has expired: links work for 5 minutes. Open the portal again from your clinical software.',
  revoked: 'Your account can no longer sign in to this organization through this software. Ask an administrator of your organization.',
};

const STYLESHEET = fs.readFileSync(new URL('./assets/portal.css', import.meta.url), 'utf8');

export const signInPages: RouteModule<{ sso: SsoContext; config: Config }> = (app, { sso, config }) => {
  const cookie = sessionCookiePolicy(config);

  app.route({
    method: 'GET',
    url: '/auth/sso',
    config: { auth: { kind: 'public' }, addressLimit: 'sso-sign-in' },
    schema: { hide: true, querystring: Type.Object({ token: Type.Optional(Type.String()), redirect: Type.Optional(Type.String()) }) },
    handler: async (request, reply) => {
      const result = await signInWithSsoToken(sso, request.query.token, request.cookies[cookie.name]);
      request.frameOrigins = result.frameOrigins;
      // The token is in this address: keep it out of caches and other sites' Referer headers.
      reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      if (!result.ok) return renderErrorPage(reply, { status: 401, title: 'Sign-in link refused', detail: REFUSALS[result.reason] }, request.id);
      reply.setCookie(cookie.name, result.sessionId, cookie.options);
      // The path the token was minted for, not the `redirect` parameter, which the address bar can change.
      return reply.redirect(result.redirectPath, 303);
    },
  });

  app.route({
    method: 'POST',
    url: '/auth/sign-out',
    config: { auth: { kind: 'session', factor: 'exempt' } },
    schema: { hide: true },
    handler: async (request, reply) => {
      await endPortalSession(sso, request.cookies[cookie.name] ?? '');
      reply.clearCookie(cookie.name, cookie.options);
      return reply.view('signed-out', {});
    },
  });

  app.route({
    method: 'GET',
    url: '/assets/portal.css',
    config: { auth: { kind: 'public' } },
    schema: { hide: true },
    handler: async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  });
};
