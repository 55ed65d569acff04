// The portal's public routes answer anyone who has the address: /auth/sso spends sign-in
// links, /tokens/{token} shows a prescription to whoever holds its token. Each counts the
// requests of one client address per minute, so nobody can try links or tokens by the
// thousand; a route opts in with `config.addressLimit`. Past the limit: the 429 error page
// with Retry-After.
import type { FastifyInstance } from 'fastify';
import { enforceAddressLimit, type AuthContext } from '../auth/index.ts';
import type { RateLimitRule } from '../platform/http/rate-limiter.ts';

/** Requests per client address and minute on each public portal route. */
export const PUBLIC_ROUTE_LIMITS = {
  // A clinic behind one address signs in a few dozen prescribers a minute at most.
  'sso-sign-in': { max: 60, windowSeconds: 60 },
  // A pharmacy opens a token page per script it dispenses.
  'token-page': { max: 120, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitRule>;

export type PublicRouteLimit = keyof typeof PUBLIC_ROUTE_LIMITS;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public portal route's per-address limit (PUBLIC_ROUTE_LIMITS). */
    addressLimit?: PublicRouteLimit;
  }
}

export function installAddressLimits(portal: FastifyInstance, auth: AuthContext): void {
  portal.addHook('onRequest', async (request) => {
    const limit = request.routeOptions.config.addressLimit;
    if (limit !== undefined) await enforceAddressLimit(auth, limit, PUBLIC_ROUTE_LIMITS[limit], request.ip);
  });
}
