// Headers every response carries (JSON API, portal, docs, errors and 404s alike), and the
// policy of the API docs page. The portal adds its own policy (portal-security.ts).
import type { FastifyInstance } from 'fastify';

/** Browsers must take every body as the content-type says, never guess a script or a page from it. */
export function installNosniff(app: FastifyInstance): void {
  // Set as the request starts (it survives to every reply, errors and 404s included): an onSend
  // hook would put every response through Fastify's onSend path, which cost validate 10 %.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
}

/**
 * The one inline style Swagger UI (5.x, as @fastify/swagger-ui bundles it) inserts at run
 * time; the docs browser test names the hash Chromium wants should an upgrade change it.
 */
const SWAGGER_UI_INLINE_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/**
 * The Swagger UI page at /docs and its assets: its scripts and stylesheets are files it serves
 * itself (no inline script; one inline style, by its hash), it fetches the OpenAPI document and, with "Try it out",
 * calls the API at its public URL; nothing else loads, and nobody frames it.
 */
export function docsContentSecurityPolicy(publicUrl: string): string {
  const api = new URL(publicUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${SWAGGER_UI_INLINE_STYLE}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${api}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
