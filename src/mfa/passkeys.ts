// Passkeys (WebAuthn) with @simplewebauthn/server: user verification required, platform or
// roaming authenticators, several per user. Each ceremony's challenge is made for the session,
// stored (mfa_challenges), spent by the first answer whatever it is, and lives 5 minutes; the
// answer's origin must be the portal's and its RP id ERX_PORTAL_URL's host. Inside a partner's
// iframe the browser adds the framing page's origin (topOrigin): it must be one the partner lists.
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { auditRecords } from '../audit/index.ts';
import { newId } from '../platform/ids.ts';
import type { PortalSession } from '../sso/index.ts';
import { cleanFactorName, noteEnrolled, type EnrolOutcome } from './mfa-enrolment.ts';
import { FactorRequired, noteRefused, notePresented, sessionMayManageFactors, type MfaContext } from './mfa-service.ts';
import { findFactorsOf, findMfaUser, insertFactor, putChallenge, takeChallenge, updatePasskeyUse } from './mfa-store.ts';
import { packageExports } from '../platform/package-namespace.ts';

/** The WebAuthn library, loaded by the first ceremony: no start-up pays for it (~0.1 s, with its X.509 and CBOR code). */
const webauthn = () => import('@simplewebauthn/server').then(packageExports);

/** A ceremony's challenge is answered within this long, once. */
export const CHALLENGE_SECONDS = 5 * 60;

const ids = (session: Pick<PortalSession, 'organizationId' | 'userId'>) => ({ organizationId: session.organizationId, userId: session.userId });
const secondsAfter = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();
const transportsOf = (stored: string | null): AuthenticatorTransport[] | undefined => (stored ? (JSON.parse(stored) as AuthenticatorTransport[]) : undefined);

/** Spends the session's challenge of `purpose`: the challenge if it was still live. */
async function spendChallenge(ctx: MfaContext, session: PortalSession, purpose: 'register' | 'authenticate'): Promise<string | undefined> {
  const row = await takeChallenge(ctx.db, session.sessionHash, purpose);
  return row && row.expires_at > ctx.clock.now().toISOString() ? row.challenge : undefined;
}

async function storeChallenge(ctx: MfaContext, session: PortalSession, purpose: 'register' | 'authenticate', challenge: string): Promise<void> {
  await putChallenge(ctx.db, { session_hash: session.sessionHash, purpose, challenge, expires_at: secondsAfter(ctx.clock.now(), CHALLENGE_SECONDS) });
}

/** The frame's origins the browser may report as topOrigin (the partner's listed origins). */
const topOriginsOf = (session: PortalSession) => (session.frameOrigins.length > 0 ? session.frameOrigins : undefined);

export async function passkeyRegistrationOptions(ctx: MfaContext, session: PortalSession): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const factors = await findFactorsOf(ctx.db, ids(session));
  if (!sessionMayManageFactors(ctx, session, factors)) throw new FactorRequired('present', false);
  const user = await findMfaUser(ctx.db, ids(session));
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: 'erx prescribing',
    rpID: ctx.rpId,
    userName: user?.email ?? session.userId,
    userDisplayName: user?.full_name ?? '',
    userID: new TextEncoder().encode(session.userId),
    attestationType: 'none',
    timeout: CHALLENGE_SECONDS * 1000,
    excludeCredentials: factors.filter((f) => f.credential_id).map((f) => ({ id: f.credential_id!, transports: transportsOf(f.transports) })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
  await storeChallenge(ctx, session, 'register', options.challenge);
  return options;
}

/** Verifies a registration answer against the session's challenge; the passkey becomes a factor. */
export async function verifyPasskeyRegistration(ctx: MfaContext, session: PortalSession, response: unknown, name: string | undefined): Promise<EnrolOutcome> {
  const factors = await findFactorsOf(ctx.db, ids(session));
  if (!sessionMayManageFactors(ctx, session, factors)) throw new FactorRequired('present', false);
  const challenge = await spendChallenge(ctx, session, 'register');
  if (!challenge) return { ok: false, reason: 'expired' };
  const verified = await (await webauthn()).verifyRegistrationResponse({
    response: response as RegistrationResponseJSON,
    expectedChallenge: challenge,
    expectedOrigin: ctx.origin,
    expectedRPID: ctx.rpId,
    requireUserVerification: true,
  }).catch(() => undefined);
  if (!verified?.verified) return { ok: false, reason: 'wrong' };
  const { credential } = verified.registrationInfo;
  const now = ctx.clock.now().toISOString();
  const factorId = newId();
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await insertFactor(trx, {
      id: factorId,
      organization_id: session.organizationId,
      user_id: session.userId,
      kind: 'passkey',
      name: cleanFactorName(name, 'Passkey'),
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      sign_count: credential.counter,
      transports: credential.transports ? JSON.stringify(credential.transports) : null,
      totp_secret_encrypted: null,
      totp_last_step: null,
      created_at: now,
      last_used_at: now,
    });
    await noteEnrolled(trx, session, now);
    record(auditRecords, { action: 'mfa.enrol', targetUserId: session.userId, detail: { reason: 'passkey', subjectId: factorId } });
  });
  return { ok: true, factorId, first: factors.length === 0 };
}

/** Options for presenting one of the user's passkeys; undefined when they hold none. */
export async function passkeyAuthenticationOptions(ctx: MfaContext, session: PortalSession): Promise<PublicKeyCredentialRequestOptionsJSON | undefined> {
  const passkeys = (await findFactorsOf(ctx.db, ids(session))).filter((f) => f.kind === 'passkey' && f.credential_id);
  if (passkeys.length === 0) return undefined;
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: ctx.rpId,
    timeout: CHALLENGE_SECONDS * 1000,
    userVerification: 'required',
    allowCredentials: passkeys.map((f) => ({ id: f.credential_id!, transports: transportsOf(f.transports) })),
  });
  await storeChallenge(ctx, session, 'authenticate', options.challenge);
  return options;
}

export type PasskeyOutcome = { ok: true } | { ok: false; reason: 'expired' | 'wrong' };

/** Verifies an authentication answer: the session's live challenge, a passkey of this user, origin, RP id, user verification, signature. */
export async function verifyPasskeyAuthentication(ctx: MfaContext, session: PortalSession, response: unknown, stepUp: boolean): Promise<PasskeyOutcome> {
  const challenge = await spendChallenge(ctx, session, 'authenticate');
  const answer = response as AuthenticationResponseJSON | undefined;
  const factor = challenge && typeof answer?.id === 'string' ? (await findFactorsOf(ctx.db, ids(session))).find((f) => f.kind === 'passkey' && f.credential_id === answer.id) : undefined;
  const verified =
    challenge && factor
      ? await (await webauthn()).verifyAuthenticationResponse({
          response: answer!,
          expectedChallenge: challenge,
          expectedOrigin: ctx.origin,
          expectedRPID: ctx.rpId,
          expectedTopOrigin: topOriginsOf(session),
          requireUserVerification: true,
          credential: { id: factor.credential_id!, publicKey: Buffer.from(factor.public_key!, 'base64url'), counter: factor.sign_count ?? 0, transports: transportsOf(factor.transports) },
        }).catch(() => undefined)
      : undefined;
  if (!verified?.verified || !factor) {
    // Not counted toward the code lockout: a passkey answer cannot be guessed, only forged or replayed.
    await noteRefused(ctx, session, 'passkey', 'invalid');
    return { ok: false, reason: challenge ? 'wrong' : 'expired' };
  }
  const at = ctx.clock.now().toISOString();
  await notePresented(ctx, session, { method: 'passkey', factorId: factor.id, stepUp }, async (trx) => {
    await updatePasskeyUse(trx, factor.id, verified.authenticationInfo.newCounter, at);
    return true;
  });
  return { ok: true };
}
