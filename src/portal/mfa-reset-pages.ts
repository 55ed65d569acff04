// For an organization's owners and admins (issue 39 item 5): who has which sign-in factor, and
// the reset of another user's factors, a step-up (a factor of their own presented within 5
// minutes); nobody resets their own. The user is told at their next sign-in.
import { Type } from '@sinclair/typebox';
import { listOrganizationMfa, resetUserMfaFromPortal, type MfaContext } from '../mfa/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { RouteModule } from '../route-module.ts';
import { layoutOf } from './page-layout.ts';
import { sessionOf } from './portal-context.ts';

const USERS_MFA = '/dashboard/users/mfa';
const resetPath = (userId: string) => `/dashboard/users/${encodeURIComponent(userId)}/mfa-reset`;

export const mfaResetPages: RouteModule<MfaContext> = (app, mfa) => {
  app.route({
    method: 'GET',
    url: USERS_MFA,
    config: { auth: { kind: 'session', capability: 'manage_users' } },
    schema: { hide: true, querystring: Type.Object({ reset: Type.Optional(Type.String({ maxLength: 1 })) }) },
    handler: async (request, reply) => {
      const users = await listOrganizationMfa(mfa, sessionOf(request));
      const notice = request.query.reset ? "The user's factors were reset: they set up a new one at their next sign-in." : undefined;
      return reply.view('mfa-users', { ...layoutOf(reply, 'dashboard', "Users' sign-in factors"), users, resetPath, notice });
    },
  });

  app.route({
    method: 'POST',
    url: '/dashboard/users/:user_id/mfa-reset',
    // An owner or admin, with a factor of their own presented within 5 minutes.
    config: { auth: { kind: 'session', capability: 'manage_users', factor: 'fresh' } },
    schema: { hide: true, params: Type.Object({ user_id: Type.String({ maxLength: 100 }) }) },
    handler: async (request, reply) => {
      const outcome = await resetUserMfaFromPortal(mfa, sessionOf(request), request.params.user_id);
      if (outcome.kind === 'not_found') throw new ApiError('RESOURCE_NOT_FOUND', 'There is no such user in your organization.');
      if (outcome.kind === 'self') throw new ApiError('FORBIDDEN', 'You cannot reset your own factors: ask another owner or admin of your organization.');
      return reply.redirect(`${USERS_MFA}?reset=1`, 303);
    },
  });
};
