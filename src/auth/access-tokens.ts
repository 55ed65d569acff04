// Issues and verifies the RS256 bearer tokens of /v1/token.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { AUTH_DETAIL, unauthorized } from '../platform/http/api-error.ts';
import type { Awaitable } from '../platform/awaitable.ts';
import type { Clock } from '../platform/clock.ts';
import { isScope, type Scope } from './scopes.ts';
import type { SigningKeys } from '../platform/signing-keys.ts';

export interface AccessTokenClaims {
  partnerId: string;
  organizationId: string;
  userId: string;
  scopes: Scope[];
  /** `iat`, in seconds. */
  issuedAt: number;
}

export const TOKEN_ISSUER = 'erx';

/** Every token names the partner API as its audience; a token minted for anything else is refused. */
export const TOKEN_AUDIENCE = 'erx-partner-api';

export async function signAccessToken(
  claims: Omit<AccessTokenClaims, 'issuedAt'>,
  keys: SigningKeys,
  clock: Clock,
  ttlSeconds: number,
): Promise<string> {
  const issuedAt = Math.floor(clock.now().getTime() / 1000);
  return new SignJWT({
    organization_id: claims.organizationId,
    partner_id: claims.partnerId,
    user_id: claims.userId,
    scope: claims.scopes,
  })
    .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setSubject(claims.userId)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(keys.privateKey);
}

/** The token's claims; at once (no promise) for a token verified before and not yet expired. */
export type AccessTokenVerifier = (token: string) => Awaitable<AccessTokenClaims>;

function readClaims(payload: Record<string, unknown>): AccessTokenClaims | undefined {
  const { organization_id, partner_id, user_id, scope, iat } = payload;
  if (typeof organization_id !== 'string' || typeof partner_id !== 'string' || typeof user_id !== 'string') return undefined;
  if (!Array.isArray(scope) || !scope.every((s) => typeof s === 'string') || typeof iat !== 'number') return undefined;
  return { organizationId: organization_id, partnerId: partner_id, userId: user_id, scopes: scope.filter(isScope), issuedAt: iat };
}

/** Partners reuse a token for its whole life; verified tokens are remembered until they expire. */
const VERIFIED_CACHE_LIMIT = 10_000;

/** An RS256 signature is 342 base64url characters; its last 32 tell tokens apart. */
const cacheKeyOf = (token: string) => token.slice(-32);

export function createAccessTokenVerifier(keys: SigningKeys, clock: Clock): AccessTokenVerifier {
  const keySet: JWTVerifyGetKey = createLocalJWKSet(keys.jwks);
  // Keyed on the signature's last characters, not the whole token: hashing some 900 characters
  // of a token that arrives as a new string with every request costs a microsecond. A hit
  // still needs the whole token to match.
  const verified = new Map<string, { token: string; claims: AccessTokenClaims; expiresAtMs: number }>();
  const verify = async (token: string): Promise<AccessTokenClaims> => {
    try {
      const { payload } = await jwtVerify(token, keySet, {
        algorithms: ['RS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        currentDate: clock.now(),
        requiredClaims: ['exp', 'iat', 'aud'],
      });
      const claims = readClaims(payload);
      if (claims) {
        if (verified.size >= VERIFIED_CACHE_LIMIT) verified.delete(verified.keys().next().value!);
        verified.set(cacheKeyOf(token), { token, claims, expiresAtMs: payload.exp! * 1000 });
        return claims;
      }
    } catch {
      // Any signature, expiry or format failure is the same answer to the caller.
    }
    throw unauthorized(AUTH_DETAIL.token);
  };
  return (token) => {
    const known = verified.get(cacheKeyOf(token));
    return known?.token === token && known.expiresAtMs > clock.now().getTime() ? known.claims : verify(token);
  };
}
