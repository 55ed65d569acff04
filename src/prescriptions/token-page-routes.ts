// The token page, /tokens/{token}, in the portal context (at the root, outside the API's
// base path): the address a prescription's url points to. Public, like a token link sent
// by SMS: the 22-character random token in the address is the only key to it. Its print view,
// /tokens/{token}/print, is the paper token for a patient with neither phone nor e-mail.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../route-module.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';
import { readTokenPage, readTokenPrintView } from './token-page-view.ts';

export const tokenPageRoutes: RouteModule<PrescriptionsContext> = (app, prescriptions) => {
  app.route({
    method: 'GET',
    url: '/tokens/:token',
    // Limited per client address (portal-address-limits.ts).
    config: { auth: { kind: 'public' }, addressLimit: 'token-page' },
    // An HTML page, not part of the JSON API's document.
    schema: { hide: true, params: Type.Object({ token: Type.String() }) },
    handler: async (request, reply) => {
      const page = await readTokenPage(prescriptions, request.params.token);
      // The address is the secret: keep it out of caches, other sites' Referer headers and search engines.
      reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex' });
      return reply.view('token-page', { ...page, printPath: `${request.params.token}/print` });
    },
  });
  app.route({
    method: 'GET',
    url: '/tokens/:token/print',
    config: { auth: { kind: 'public' }, addressLimit: 'token-page' },
    schema: { hide: true, params: Type.Object({ token: Type.String() }) },
    handler: async (request, reply) => {
      const page = await readTokenPrintView(prescriptions, request.params.token);
      reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex' });
      return reply.view('token-print', page);
    },
  });
};
