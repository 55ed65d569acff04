// The portal's browser-facing security settings, as pure functions of configuration and the
// partner's frame origins: the session cookie and the Content-Security-Policy.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.ts';

export interface SessionCookiePolicy {
  name: string;
  options: CookieSerializeOptions;
}

/**
 * HttpOnly and host-only (no Domain) always. A portal that must work inside a partner's
 * iframe needs `SameSite=None`, which browsers accept only with `Secure`, i.e. over https: so
 * in production, and whenever the portal is served over https. A sandbox over plain http
 * gets `SameSite=Lax` (an iframe on another port of the same host still works: same site).
 * A Secure cookie takes the `__Host-` prefix, so the browser itself refuses a Domain or a
 * path other than `/` for it.
 */
export function sessionCookiePolicy(config: Pick<Config, 'mode' | 'portalUrl'>): SessionCookiePolicy {
  const secure = config.mode === 'production' || config.portalUrl.startsWith('https:');
  return {
    name: secure ? '__Host-erx_portal_session' : 'erx_portal_session',
    options: { httpOnly: true, path: '/', secure, sameSite: secure ? 'none' : 'lax' },
  };
}

/**
 * Every portal response's policy: nothing loads but the portal's own stylesheet and inline
 * images (data: URLs), no script (but the portal's own on the pages that run a passkey
 * ceremony), forms post only to the portal, and only the partner's
 * listed origins may frame it (none listed, or no session: nobody may).
 */
export function contentSecurityPolicy(frameOrigins: readonly string[], ceremony = false): string {
  const ancestors = frameOrigins.length > 0 ? frameOrigins.join(' ') : "'none'";
  // A page that runs a passkey ceremony loads the portal's one script and calls its own JSON routes.
  const script = ceremony ? " script-src 'self'; connect-src 'self';" : '';
  return `default-src 'none';${script} style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors ${ancestors}`;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The page runs a WebAuthn ceremony: its policy allows the portal's own script (/assets/mfa.js) and fetches to the portal. */
    ceremony?: boolean;
  }
}

/** The pages a partner may frame: those under /embed/ (and the sign-in redirect to one). */
export const EMBED_PREFIX = '/embed/';

/**
 * Whether a portal response may be framed by the partner's origins: a page of /embed/*, or the
 * SSO landing's redirect to one (the frame's first response). Every other page (/dashboard/*,
 * sign-in errors, the stylesheet) refuses framing whatever the partner lists.
 */
export function isFramableResponse(routeUrl: string | undefined, location: unknown): boolean {
  return routeUrl?.startsWith(EMBED_PREFIX) === true || (typeof location === 'string' && location.startsWith(EMBED_PREFIX));
}
