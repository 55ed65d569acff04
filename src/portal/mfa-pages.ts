// The prescriber MFA pages (issue 39), in both frames (/dashboard/... full page, /embed/...
// inside a partner's iframe): the factor page every gated session is sent to (enrol a first
// factor, or present one), TOTP and recovery-code forms that work without JavaScript, the
// passkey ceremonies' JSON routes (the pages that run one load /assets/mfa.js), the recovery
// codes shown once, and the user's own factors (removing one or making new codes is a step-up).
// Owners' and admins' reset of another user's factors: mfa-reset-pages.ts.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import {
  confirmTotpEnrolment,
  FACTOR_NAME_MAX,
  issueFirstRecoveryCodes,
  passkeyAuthenticationOptions,
  passkeyRegistrationOptions,
  readEnrolPage,
  readFactorPage,
  readFactorsPage,
  regenerateRecoveryCodes,
  removeFactor,
  verifyPasskeyAuthentication,
  verifyPasskeyRegistration,
  verifyRecoveryCode,
  verifyTotpCode,
  type CodeOutcome,
  type MfaContext,
} from '../mfa/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { RouteModule } from '../route-module.ts';
import { layoutOf, PORTAL_FRAMES, type PortalFrame } from './page-layout.ts';
import { portalReturnPath, sessionOf } from './portal-context.ts';

/** The one first-party script of the ceremony pages: @simplewebauthn/browser's bundle, then the portal's glue. */
function readCeremonyScript(): string {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  const bundle = fs.readFileSync(path.join(path.dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
  const glue = fs.readFileSync(new URL('./assets/mfa-ceremony.js', import.meta.url), 'utf8');
  return `${bundle}\n${glue}`;
}

const session = (factor?: 'fresh' | 'exempt', extra: { json?: true } = {}) => ({ auth: { kind: 'session' as const, ...(factor ? { factor } : {}), ...extra } });
const ceremony = { ...session('exempt'), ceremony: true };

const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })), step_up: Type.Optional(Type.String({ maxLength: 1 })) });
const CodeForm = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 40 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  step_up: Type.Optional(Type.String({ maxLength: 1 })),
  name: Type.Optional(Type.String({ maxLength: FACTOR_NAME_MAX })),
});
const CeremonyAnswer = Type.Object({
  response: Type.Optional(Type.Unknown()),
  name: Type.Optional(Type.String({ maxLength: FACTOR_NAME_MAX })),
  step_up: Type.Optional(Type.Boolean()),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});

/** The MFA pages of one frame. */
export function mfaPaths(frame: PortalFrame) {
  const base = `/${frame}/mfa`;
  return {
    factor: base,
    totp: `${base}/totp`,
    recovery: `${base}/recovery`,
    passkey: `${base}/passkey`,
    done: `${base}/done`,
    enrol: `${base}/enrol`,
    enrolTotp: `${base}/enrol/totp`,
    enrolPasskey: `${base}/enrol/passkey`,
    recoveryCodes: `${base}/recovery-codes`,
    factors: `${base}/factors`,
    remove: (factorId: string) => `${base}/factors/${encodeURIComponent(factorId)}/remove`,
    regenerate: `${base}/recovery-codes`,
  };
}


/** Where to go once the factor is presented: the page asked for, else the frame's start. */
function nextOf(frame: PortalFrame, next: string | undefined): string {
  const path = portalReturnPath(next);
  // Only back into the portal's pages of this frame (or the dashboard), never the MFA pages' posts.
  if (path && (path.startsWith(`/${frame}/`) || path === '/dashboard')) return path;
  return frame === 'dashboard' ? '/dashboard' : mfaPaths('embed').done;
}

const CODE_REFUSALS = {
  wrong: 'That code was not accepted. Check the code and try again (each code works once).',
  locked: 'Too many wrong codes: code entry is locked for 15 minutes. Use your passkey, or ask an owner or admin of your organization.',
} as const;

const ENROL_REFUSALS = {
  wrong: 'That code did not match the key shown. Check the app and the device clock, then try again.',
  expired: 'This setup page has expired. The page has been refreshed with a new key: scan it again.',
} as const;

export const mfaPages: RouteModule<MfaContext> = (app, mfa) => {
  const script = readCeremonyScript();
  app.route({
    method: 'GET',
    url: '/assets/mfa.js',
    config: { auth: { kind: 'public' } },
    schema: { hide: true },
    handler: async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(script),
  });

  for (const frame of PORTAL_FRAMES) {
    const paths = mfaPaths(frame);
    /** The page's passkey box and the new window a refused frame can open instead. */
    const passkeyBox = (mode: 'register' | 'authenticate', next: string, stepUp: boolean) => ({
      mode,
      base: mode === 'register' ? paths.enrolPasskey : paths.passkey,
      next,
      newWindow: `${mfaPaths('dashboard').factor}?${new URLSearchParams({ next: mfaPaths('dashboard').done, ...(stepUp ? { step_up: '1' } : {}) }).toString()}`,
    });

    async function showFactorPage(reply: FastifyReply, next: string, stepUp: boolean, error?: string, status = 200) {
      const page = await readFactorPage(mfa, sessionOf(reply.request));
      const mode = page.mode === 'enrol' ? 'register' : 'authenticate';
      const title = page.mode === 'enrol' ? 'Set up your second factor' : 'Second factor';
      const model = { ...layoutOf(reply, frame, title), ceremony: true, page, paths, next, stepUp, error, passkey: passkeyBox(mode, next, stepUp) };
      return reply.status(status).view(page.mode === 'enrol' ? 'mfa-enrol' : 'mfa-present', model);
    }

    async function answerCode(reply: FastifyReply, outcome: CodeOutcome, next: string, stepUp: boolean) {
      if (outcome.ok) return reply.redirect(next, 303);
      if (outcome.reason === 'locked') {
        reply.header('retry-after', String(outcome.retryAfterSeconds));
        return showFactorPage(reply, next, stepUp, CODE_REFUSALS.locked, 429);
      }
      return showFactorPage(reply, next, stepUp, CODE_REFUSALS.wrong, 400);
    }

    app.route({
      method: 'GET',
      url: paths.factor,
      config: ceremony,
      schema: { hide: true, querystring: NextQuery },
      handler: async (request, reply) => showFactorPage(reply, nextOf(frame, request.query.next), request.query.step_up === '1'),
    });

    // An authenticator-app code and a recovery code are entered and answered alike.
    for (const [url, verify] of [
      [paths.totp, verifyTotpCode],
      [paths.recovery, verifyRecoveryCode],
    ] as const) {
      app.route({
        method: 'POST',
        url,
        config: ceremony,
        schema: { hide: true, body: CodeForm },
        handler: async (request, reply) => {
          const stepUp = request.body.step_up === '1';
          const outcome = await verify(mfa, sessionOf(request), request.body.code ?? '', stepUp);
          return answerCode(reply, outcome, nextOf(frame, request.body.next), stepUp);
        },
      });
    }

    app.route({
      method: 'POST',
      url: `${paths.passkey}/options`,
      config: session('exempt', { json: true }),
      schema: { hide: true },
      handler: async (request, reply) => {
        const options = await passkeyAuthenticationOptions(mfa, sessionOf(request));
        if (!options) return reply.status(404).send({ error: 'no_passkey', detail: 'You have no passkey here: use your authenticator app or a recovery code.' });
        return options;
      },
    });

    app.route({
      method: 'POST',
      url: `${paths.passkey}/verify`,
      config: session('exempt', { json: true }),
      attachValidation: true,
      schema: { hide: true, body: CeremonyAnswer },
      handler: async (request, reply) => {
        if (request.validationError) return reply.status(400).send({ error: 'invalid_request', detail: 'The passkey answer could not be read.' });
        const outcome = await verifyPasskeyAuthentication(mfa, sessionOf(request), request.body.response, request.body.step_up === true);
        if (!outcome.ok) {
          const detail = outcome.reason === 'expired' ? 'This passkey check has expired or was already answered. Start it again.' : 'The passkey answer was refused.';
          return reply.status(400).send({ error: outcome.reason === 'expired' ? 'challenge_expired' : 'refused', detail });
        }
        return { next: nextOf(frame, request.body.next) };
      },
    });

    app.route({
      method: 'GET',
      url: paths.done,
      config: ceremony,
      schema: { hide: true },
      handler: async (_request, reply) => reply.view('mfa-done', { ...layoutOf(reply, frame, 'Second factor confirmed'), ceremony: true, next: frame === 'dashboard' ? '/dashboard' : undefined }),
    });

    app.route({
      method: 'GET',
      url: paths.enrol,
      config: ceremony,
      schema: { hide: true, querystring: NextQuery },
      handler: async (request, reply) => {
        const page = await readEnrolPage(mfa, sessionOf(request));
        const next = nextOf(frame, request.query.next ?? paths.factors);
        return reply.view('mfa-enrol', { ...layoutOf(reply, frame, 'Add a sign-in factor'), ceremony: true, page, paths, next, stepUp: false, passkey: passkeyBox('register', next, false) });
      },
    });

    app.route({
      method: 'POST',
      url: paths.enrolTotp,
      config: ceremony,
      schema: { hide: true, body: CodeForm },
      handler: async (request, reply) => {
        const next = nextOf(frame, request.body.next);
        const outcome = await confirmTotpEnrolment(mfa, sessionOf(request), request.body.code ?? '', request.body.name);
        if (outcome.ok) return reply.redirect(outcome.first ? `${paths.recoveryCodes}?${new URLSearchParams({ next }).toString()}` : `${paths.factors}?added=1`, 303);
        const page = await readEnrolPage(mfa, sessionOf(request));
        const model = { ...layoutOf(reply, frame, 'Set up your second factor'), ceremony: true, page, paths, next, stepUp: false, error: ENROL_REFUSALS[outcome.reason], passkey: passkeyBox('register', next, false) };
        return reply.status(400).view('mfa-enrol', model);
      },
    });

    app.route({
      method: 'POST',
      url: `${paths.enrolPasskey}/options`,
      config: session('exempt', { json: true }),
      schema: { hide: true },
      handler: async (request) => passkeyRegistrationOptions(mfa, sessionOf(request)),
    });

    app.route({
      method: 'POST',
      url: `${paths.enrolPasskey}/verify`,
      config: session('exempt', { json: true }),
      attachValidation: true,
      schema: { hide: true, body: CeremonyAnswer },
      handler: async (request, reply) => {
        if (request.validationError) return reply.status(400).send({ error: 'invalid_request', detail: 'The passkey answer could not be read.' });
        const outcome = await verifyPasskeyRegistration(mfa, sessionOf(request), request.body.response, request.body.name);
        if (!outcome.ok) return reply.status(400).send({ error: outcome.reason, detail: outcome.reason === 'expired' ? 'This passkey setup has expired. Start it again.' : 'The new passkey was refused.' });
        const next = nextOf(frame, request.body.next);
        return { next: outcome.first ? `${paths.recoveryCodes}?${new URLSearchParams({ next }).toString()}` : `${paths.factors}?added=1` };
      },
    });

    app.route({
      method: 'GET',
      url: paths.recoveryCodes,
      config: session(),
      schema: { hide: true, querystring: NextQuery },
      handler: async (request, reply) => {
        const codes = await issueFirstRecoveryCodes(mfa, sessionOf(request));
        return reply.view('mfa-recovery-codes', { ...layoutOf(reply, frame, 'Recovery codes'), codes, next: nextOf(frame, request.query.next) });
      },
    });

    app.route({
      method: 'POST',
      url: paths.regenerate,
      config: session('fresh'),
      schema: { hide: true },
      handler: async (request, reply) => {
        const codes = await regenerateRecoveryCodes(mfa, sessionOf(request));
        return reply.view('mfa-recovery-codes', { ...layoutOf(reply, frame, 'Recovery codes'), codes, next: paths.factors });
      },
    });

    app.route({
      method: 'GET',
      url: paths.factors,
      config: session(),
      schema: { hide: true, querystring: Type.Object({ added: Type.Optional(Type.String({ maxLength: 1 })), removed: Type.Optional(Type.String({ maxLength: 1 })) }) },
      handler: async (request, reply) => {
        const page = await readFactorsPage(mfa, sessionOf(request));
        const notice = request.query.added ? 'Factor added.' : request.query.removed ? 'Factor removed.' : undefined;
        return reply.view('mfa-factors', { ...layoutOf(reply, frame, 'Sign-in factors'), page, paths, notice });
      },
    });

    app.route({
      method: 'POST',
      url: `${paths.factors}/:factor_id/remove`,
      config: session('fresh'),
      schema: { hide: true, params: Type.Object({ factor_id: Type.String({ maxLength: 100 }) }) },
      handler: async (request, reply) => {
        const removed = await removeFactor(mfa, sessionOf(request), request.params.factor_id);
        if (!removed) throw new ApiError('RESOURCE_NOT_FOUND', 'You have no such factor.');
        return reply.redirect(`${paths.factors}?removed=1`, 303);
      },
    });
  }
};
