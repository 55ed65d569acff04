// The portal's own machinery: errors as an HTML page (a browser shows it, inside a partner's
// iframe too), and the session check of every session route. Sessions come with SSO; until a
// session store exists every session route answers 401 with the sign-in explanation.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ApiError, ERROR_CODES } from '../platform/http/api-error.ts';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}

export function renderErrorPage(status: number, title: string, detail: string, requestId: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>`,
    `<p><small>Error ${status}; quote reference ${escapeHtml(requestId)} to support.</small></p></main></body></html>`,
  ].join('\n');
}

/** Every failure in the portal context answers an HTML page with the status it stands for. */
export function installPortalErrorPage(portal: FastifyInstance, logger: Logger): void {
  portal.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof ApiError ? error : undefined;
    if (!known) logger.error({ err: error, requestId: request.id }, 'unhandled portal error');
    const status = known ? known.status : (error.statusCode ?? 500) < 500 ? error.statusCode! : 500;
    const title = known ? ERROR_CODES[known.code].title : status === 500 ? 'Something went wrong' : 'Request refused';
    const detail = known ? known.detail : status === 500 ? 'The page could not be shown. Try again in a moment.' : 'The request could not be handled.';
    return reply.status(status).type('text/html; charset=utf-8').send(renderErrorPage(status, title, detail, request.id));
  });
}

/** Session routes: no session store yet, so nobody is signed in. */
export function installSessionAuth(portal: FastifyInstance): void {
  portal.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.auth?.kind !== 'session') return done();
    done(new ApiError('UNAUTHORIZED', 'Open the portal from your clinical software to sign in'));
  });
}
