// The portal context's own machinery, registered on it alone (the JSON API stays JSON-only):
// cookies, form bodies, templates that escape by default (Eta), CSRF tokens bound to the
// session, the session check of every session route, the security headers of every
// response (the Content-Security-Policy's frame-ancestors are the partner's frame origins on
// /embed/* pages, 'none' elsewhere),
// and errors as an HTML page, which a browser shows (inside a partner's iframe too).
import { identifyAuditActor, type SecurityAlerts } from '../audit/index.ts';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { holdsCapability } from '../auth/index.ts';
import { ApiError, ERROR_CODES } from '../platform/http/api-error.ts';
import { factorGateOf, FactorRequired, stepUpGateOf, type MfaContext } from '../mfa/index.ts';
import { findLivePortalSession, type PortalSession, type SsoContext } from '../sso/index.ts';
import { installAddressLimits } from './portal-address-limits.ts';
import { contentSecurityPolicy, isFramableResponse, sessionCookiePolicy } from './portal-security.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session of a session route (null on public routes). */
    portalSession: PortalSession | null;
    /** Where @fastify/csrf-protection (in its session mode) finds the session's CSRF secret. */
    session: { csrfSecret?: string } | null;
    /** Origins allowed to frame this response (null: none). */
    frameOrigins: readonly string[] | null;
  }
}

export const TEMPLATES_DIR = fileURLToPath(new URL('./templates/', import.meta.url));

/** Longest form body the portal accepts (a prescription form is well under 4 KB). */
const FORM_BODY_LIMIT_BYTES = 32 * 1024;

export const ROLE_REFUSED = 'Your role in this organization does not give access to this page. Ask an owner or admin of the organization if you need it.';

export const SIGN_IN_AGAIN = 'Your session has ended or was never opened here. Open the portal again from your clinical software.';

/** The signed-in session of a session route. */
export function sessionOf(request: { portalSession: PortalSession | null }): PortalSession {
  if (!request.portalSession) throw new Error('sessionOf called on a route without session authentication');
  return request.portalSession;
}

interface ErrorPage {
  status: number;
  title: string;
  detail: string;
}

const CSRF_ERRORS = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

function describeError(error: FastifyError): ErrorPage {
  if (error instanceof ApiError) return { status: error.status, title: ERROR_CODES[error.code].title, detail: error.detail };
  if (CSRF_ERRORS.has(error.code)) {
    return { status: 403, title: 'Form refused', detail: 'This form was not sent from the page this session showed, or the page is out of date. Go back, reload the page and try again.' };
  }
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) return { status, title: 'Something went wrong', detail: 'The page could not be shown. Try again in a moment.' };
  return { status, title: 'Request refused', detail: 'The request could not be handled.' };
}

/** Why a signed-in user's page was refused, as its security alert names it (by the page's status). */
const PAGE_REFUSALS: Readonly<Record<number, string>> = { 403: 'page_forbidden', 404: 'page_not_found' };

/**
 * A signed-in user refused a page (403: the role lacks the capability, or a form not sent from
 * the session's page; 404: an id outside the organization) is recorded (issue 38 item 4) as a
 * security alert: counted per client address, page, reason and minute with the user's ids, apart
 * from the 7-year chain, so a user (or a script with a stolen cookie) probing ids adds counts,
 * not entries. A bucket keeps the ids of its first refusal.
 */
async function noteRefusedPage(securityAlerts: SecurityAlerts, request: FastifyRequest, status: number): Promise<void> {
  const session = request.portalSession;
  const reason = PAGE_REFUSALS[status];
  if (!session || !reason) return;
  const known = (value: string) => ({ value, wellFormed: true });
  await securityAlerts.note({
    endpoint: `${request.method} ${request.routeOptions.url ?? ''}`,
    reason,
    clientAddress: request.ip,
    claimed: { partnerId: known(session.partnerId), organizationId: known(session.organizationId), userId: known(session.userId) },
  });
}

/** Every failure in the portal context answers an HTML page with the status it stands for. */
function installPortalErrorPage(portal: FastifyInstance, logger: Logger, securityAlerts: SecurityAlerts): void {
  portal.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof FactorRequired) return answerFactorRequired(request, reply, error);
    const page = describeError(error);
    await noteRefusedPage(securityAlerts, request, page.status);
    // A 429's Retry-After.
    if (error instanceof ApiError && error.headers) reply.headers(error.headers);
    if (page.status === 500) logger.error({ err: error, requestId: request.id }, 'unhandled portal error');
    return renderErrorPage(reply, page, request.id);
  });
}

export async function renderErrorPage(reply: FastifyReply, page: ErrorPage, requestId: string): Promise<FastifyReply> {
  reply.status(page.status).type('text/html; charset=utf-8');
  return reply.send(await reply.viewAsync('portal-error', { ...page, requestId }));
}

/**
 * The MFA gate of a session route (issue 39): by default the session must have passed it
 * (enrolled where required, factor presented in this session); `fresh` asks for a step-up;
 * `exempt` (the MFA pages, signing out) lets any live session through.
 */
async function passFactorGate(mfa: MfaContext, session: PortalSession, factor: 'fresh' | 'exempt' | undefined): Promise<void> {
  if (factor === 'exempt') return;
  const gate = factor === 'fresh' ? await stepUpGateOf(mfa, session) : await factorGateOf(mfa, session);
  if (gate !== 'open') throw new FactorRequired(gate, factor === 'fresh');
}

/** A portal path given as where to return (no scheme, host, `//` or backslash), or undefined. */
export function portalReturnPath(path: string | undefined): string | undefined {
  if (!path || path.length > 2000 || !path.startsWith('/') || path.startsWith('//') || /[\\\s]/.test(path)) return undefined;
  return path;
}

/** Where a post came from (its same-origin Referer's path), to return to after a step-up. */
function refererPathOf(request: FastifyRequest): string | undefined {
  const referer = request.headers.referer;
  if (typeof referer !== 'string') return undefined;
  try {
    const url = new URL(referer);
    const host = new URL(`${url.protocol}//${request.headers.host ?? ''}`).host;
    return url.host === host ? portalReturnPath(`${url.pathname}${url.search}`) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A session that must enrol or present a factor: a JSON route answers 401; a page is redirected
 * to the factor page of its frame, which returns to the page (a GET) or to the page the form
 * was posted from (a POST, which the user sends again once the factor is presented).
 */
async function answerFactorRequired(request: FastifyRequest, reply: FastifyReply, error: FactorRequired): Promise<FastifyReply> {
  if (request.routeOptions.config.auth?.kind === 'session' && request.routeOptions.config.auth.json) {
    return reply.status(401).type('application/json; charset=utf-8').send({ error: 'factor_required', detail: FACTOR_REQUIRED_DETAIL });
  }
  const frame = request.url.startsWith('/embed/') ? 'embed' : 'dashboard';
  const next = request.method === 'GET' ? portalReturnPath(request.url) : refererPathOf(request);
  const query = new URLSearchParams();
  if (next) query.set('next', next);
  if (error.stepUp) query.set('step_up', '1');
  const search = query.toString();
  return reply.redirect(`/${frame}/mfa${search ? `?${search}` : ''}`, 303);
}

export const FACTOR_REQUIRED_DETAIL = 'This session has not presented its second factor (passkey or authenticator code). Open the portal page to present it.';

/** Session routes: the cookie must name a live session; it becomes request.portalSession. */
function installSessionAuth(portal: FastifyInstance, sso: SsoContext, mfa: MfaContext, config: Pick<Config, 'mode' | 'portalUrl'>): void {
  const cookiePolicy = sessionCookiePolicy(config);
  portal.decorateRequest('portalSession', null);
  portal.decorateRequest('session', null);
  portal.decorateRequest('frameOrigins', null);
  portal.addHook('onRequest', async (request, reply) => {
    request.session = {};
    if (request.routeOptions.config.auth?.kind !== 'session') return;
    const presented = request.cookies[cookiePolicy.name];
    const session = await findLivePortalSession(sso, presented);
    if (!session) {
      if (presented !== undefined) reply.clearCookie(cookiePolicy.name, cookiePolicy.options);
      throw new ApiError('UNAUTHORIZED', SIGN_IN_AGAIN);
    }
    request.portalSession = session;
    identifyAuditActor({ kind: 'user', partnerId: session.partnerId, organizationId: session.organizationId, userId: session.userId }, session.organizationHpio);
    request.session = { csrfSecret: session.csrfSecret };
    request.frameOrigins = session.frameOrigins;
    const { capability, instead } = request.routeOptions.config.auth;
    if (!capability || holdsCapability(session.roles, capability)) return;
    if (instead && holdsCapability(session.roles, instead.capability)) return reply.redirect(instead.to(request), 303);
    throw new ApiError('FORBIDDEN', ROLE_REFUSED);
  });
  // Every POST is a form of a session page: it must carry that session's CSRF token.
  portal.addHook('preHandler', (request, reply, done) => (request.method === 'POST' ? portal.csrfProtection(request, reply, done) : done()));
  // Then the MFA gate: a forged post is refused as such, before any factor page is offered.
  portal.addHook('preHandler', async (request) => {
    const auth = request.routeOptions.config.auth;
    if (auth?.kind === 'session' && request.portalSession) await passFactorGate(mfa, request.portalSession, auth.factor);
  });
}

/** Headers on every portal response, errors and redirects included. */
function installSecurityHeaders(portal: FastifyInstance): void {
  portal.addHook('onSend', async (request, reply, payload) => {
    const framable = isFramableResponse(request.routeOptions.url, reply.getHeader('location'));
    reply.header('content-security-policy', contentSecurityPolicy(framable ? (request.frameOrigins ?? []) : [], request.routeOptions.config.ceremony === true));
    // For browsers that predate frame-ancestors; it cannot list origins, so framable pages go without.
    if (!framable) reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'same-origin');
    // Session pages show patient data: never from a cache.
    if (request.routeOptions.config.auth?.kind === 'session' && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}

/** Registers everything above on the portal context, before its routes. */
export async function installPortal(portal: FastifyInstance, options: { config: Config; sso: SsoContext; mfa: MfaContext; logger: Logger; securityAlerts: SecurityAlerts }): Promise<void> {
  await portal.register(cookie);
  await portal.register(formbody, { bodyLimit: FORM_BODY_LIMIT_BYTES });
  await portal.register(view, {
    engine: { eta: new Eta({ views: TEMPLATES_DIR, autoEscape: true, cache: true }) },
    templates: TEMPLATES_DIR,
    production: true,
  });
  await portal.register(csrf, { sessionPlugin: '@fastify/session', sessionKey: 'csrfSecret' });
  installPortalErrorPage(portal, options.logger, options.securityAlerts);
  installAddressLimits(portal, options.sso.auth);
  installSessionAuth(portal, options.sso, options.mfa, options.config);
  installSecurityHeaders(portal);
}
