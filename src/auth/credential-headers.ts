// The five credential headers of /v1/token and /v1/sso: which are missing, their values, and
// the ids they claim (before any check says whether the claim holds).
import { invalidRequest } from '../platform/http/api-error.ts';
import type { ClaimedIds } from './credential-failures.ts';

/** The credential headers of /v1/token, in the order a missing one is reported. */
export const TOKEN_HEADERS = ['x-partner-id', 'x-partner-secret', 'x-organization-id', 'x-organization-secret', 'x-user-id'] as const;

export type TokenHeaders = Record<(typeof TOKEN_HEADERS)[number], string>;

/** The credential headers that are absent or blank, in TOKEN_HEADERS order. */
export function missingCredentialHeaders(headers: Record<string, string | string[] | undefined>): string[] {
  return TOKEN_HEADERS.filter((name) => {
    const value = headers[name];
    return typeof value !== 'string' || value.trim() === '';
  });
}

export function readTokenHeaders(headers: Record<string, string | string[] | undefined>): TokenHeaders {
  const [missing] = missingCredentialHeaders(headers);
  if (missing !== undefined) throw invalidRequest(`Missing required header: ${missing}`);
  return Object.fromEntries(TOKEN_HEADERS.map((name) => [name, (headers[name] as string).trim()])) as TokenHeaders;
}

export function claimedIdsOf(headers: TokenHeaders): ClaimedIds {
  return { partnerId: headers['x-partner-id'], organizationId: headers['x-organization-id'].toLowerCase(), userId: headers['x-user-id'].toLowerCase() };
}

/** The pair five credential headers name: once the check passed, the authenticated pair (for the request log). */
export function pairOfCredentialHeaders(headers: Record<string, string | string[] | undefined>): { partnerId: string; organizationId: string } {
  const { partnerId, organizationId } = claimedIdsOf(readTokenHeaders(headers));
  return { partnerId, organizationId };
}

