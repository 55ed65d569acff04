// Enrolling factors and managing them: a TOTP secret (made for the session, kept encrypted
// until a code proves the app holds it), the 10 single-use recovery codes (shown once, kept as
// SHA-256), and removing a factor. Enrolling a first factor counts as presenting it; a user who
// holds one already must have presented it in this session to add or remove another.
import { randomBytes, randomInt } from 'node:crypto';
import QRCode from 'qrcode';
import { auditRecords } from '../audit/index.ts';
import { newId } from '../platform/ids.ts';
import { decryptSecret, encryptSecret, hashSecret } from '../platform/secrets.ts';
import { notePortalFactorPresented, type PortalSession } from '../sso/index.ts';
import { FactorRequired, lockedUntil, normalizeRecoveryCode, sessionMayManageFactors, type MfaContext } from './mfa-service.ts';
import { countRecoveryCodes, deleteFactor, findChallenge, findFactorsOf, findMfaUser, insertFactor, putChallenge, replaceRecoveryCodes, setUserMfaResetAt, takeChallenge, type MfaFactorRow } from './mfa-store.ts';
import { base32Encode, matchTotp, otpauthUri } from './totp.ts';

export const RECOVERY_CODE_COUNT = 10;
/** A pending TOTP secret waits this long for its first code (time to install an app and scan). */
const TOTP_ENROLMENT_SECONDS = 15 * 60;
export const FACTOR_NAME_MAX = 60;

const ids = (session: Pick<PortalSession, 'organizationId' | 'userId'>) => ({ organizationId: session.organizationId, userId: session.userId });
const secondsAfter = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();

/** Refuses to change the user's factors unless none is held yet or one was presented in this session. */
async function requireManaging(ctx: MfaContext, session: PortalSession): Promise<MfaFactorRow[]> {
  const factors = await findFactorsOf(ctx.db, ids(session));
  if (!sessionMayManageFactors(ctx, session, factors)) throw new FactorRequired('present', false);
  return factors;
}

export function cleanFactorName(name: string | undefined, fallback: string): string {
  const trimmed = (name ?? '').replace(/\s+/g, ' ').trim().slice(0, FACTOR_NAME_MAX);
  return trimmed === '' ? fallback : trimmed;
}

export interface TotpEnrolment {
  /** Base32, for typing into an app. */
  secret: string;
  uri: string;
  /** The URI as a QR code (a data: URL of a PNG). */
  qrDataUrl: string;
}

/** A new TOTP secret for this session (replacing any pending one), until a code confirms it. */
export async function beginTotpEnrolment(ctx: MfaContext, session: PortalSession): Promise<TotpEnrolment> {
  await requireManaging(ctx, session);
  const user = await findMfaUser(ctx.db, ids(session));
  const secret = randomBytes(20);
  const now = ctx.clock.now();
  await putChallenge(ctx.db, { session_hash: session.sessionHash, purpose: 'totp', challenge: encryptSecret(secret.toString('base64'), ctx.secretKey), expires_at: secondsAfter(now, TOTP_ENROLMENT_SECONDS) });
  const uri = otpauthUri(secret, 'erx', user?.email ?? session.userId);
  return { secret: base32Encode(secret), uri, qrDataUrl: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) };
}

export type EnrolOutcome = { ok: true; factorId: string; first: boolean } | { ok: false; reason: 'wrong' | 'expired' };

/** Confirms the pending secret with a code of the app; it becomes a factor (and counts as presented). */
export async function confirmTotpEnrolment(ctx: MfaContext, session: PortalSession, code: string, name: string | undefined): Promise<EnrolOutcome> {
  const factors = await requireManaging(ctx, session);
  const now = ctx.clock.now();
  const pending = await findChallenge(ctx.db, session.sessionHash, 'totp');
  if (!pending || pending.expires_at <= now.toISOString()) return { ok: false, reason: 'expired' };
  const secret = Buffer.from(decryptSecret(pending.challenge, ctx.secretKey), 'base64');
  const step = matchTotp(secret, code.replace(/\s+/g, ''), now, null);
  if (step === undefined) return { ok: false, reason: 'wrong' };
  const factorId = newId();
  const added = await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (!(await takeChallenge(trx, session.sessionHash, 'totp'))) return false;
    await insertFactor(trx, {
      id: factorId,
      organization_id: session.organizationId,
      user_id: session.userId,
      kind: 'totp',
      name: cleanFactorName(name, 'Authenticator app'),
      credential_id: null,
      public_key: null,
      sign_count: null,
      transports: null,
      totp_secret_encrypted: encryptSecret(secret.toString('base64'), ctx.secretKey),
      // The confirming code is spent: it cannot sign in again.
      totp_last_step: step,
      created_at: now.toISOString(),
      last_used_at: now.toISOString(),
    });
    await noteEnrolled(trx, session, now.toISOString());
    record(auditRecords, { action: 'mfa.enrol', targetUserId: session.userId, detail: { reason: 'totp', subjectId: factorId } });
    return true;
  });
  return added ? { ok: true, factorId, first: factors.length === 0 } : { ok: false, reason: 'expired' };
}

/** Inside an enrolment's transaction: the session counts as having presented a factor; a reset notice is done with. */
export async function noteEnrolled(trx: Parameters<typeof notePortalFactorPresented>[0], session: PortalSession, at: string): Promise<void> {
  await notePortalFactorPresented(trx, session.sessionHash, at);
  await setUserMfaResetAt(trx, ids(session), null);
}

/** 10 characters of an alphabet without look-alikes, shown as xxxxx-xxxxx (about 50 bits each). */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  let code = '';
  for (let i = 0; i < 10; i++) code += alphabet[randomInt(alphabet.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

async function issueRecoveryCodes(ctx: MfaContext, session: PortalSession): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await replaceRecoveryCodes(trx, ids(session), codes.map((code) => hashSecret(normalizeRecoveryCode(code))), ctx.clock.now().toISOString());
    record(auditRecords, { action: 'mfa.recovery_codes_issued', targetUserId: session.userId, detail: { count: codes.length } });
  });
  return codes;
}

/** The first recovery codes, once: undefined when the user has no factor yet or was issued codes before (only regenerating shows new ones). */
export async function issueFirstRecoveryCodes(ctx: MfaContext, session: PortalSession): Promise<string[] | undefined> {
  const factors = await requireManaging(ctx, session);
  if (factors.length === 0) return undefined;
  if ((await countRecoveryCodes(ctx.db, ids(session))).issued > 0) return undefined;
  return issueRecoveryCodes(ctx, session);
}

/** New recovery codes replacing every earlier one (a step-up page). */
export async function regenerateRecoveryCodes(ctx: MfaContext, session: PortalSession): Promise<string[]> {
  const factors = await requireManaging(ctx, session);
  if (factors.length === 0) throw new FactorRequired('enrol', false);
  return issueRecoveryCodes(ctx, session);
}

export interface FactorView {
  id: string;
  kind: 'passkey' | 'totp';
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface FactorsPage {
  factors: FactorView[];
  recoveryCodesLeft: number;
}

export async function readFactorsPage(ctx: MfaContext, session: PortalSession): Promise<FactorsPage> {
  const factors = await requireManaging(ctx, session);
  const codes = await countRecoveryCodes(ctx.db, ids(session));
  return {
    factors: factors.map((f) => ({ id: f.id, kind: f.kind, name: f.name, createdAt: f.created_at, lastUsedAt: f.last_used_at })),
    recoveryCodesLeft: codes.unused,
  };
}

/** Removes one of the user's own factors (a step-up page); false when they hold no such factor. */
export async function removeFactor(ctx: MfaContext, session: PortalSession, factorId: string): Promise<boolean> {
  await requireManaging(ctx, session);
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    const removed = await deleteFactor(trx, ids(session), factorId);
    if (removed) record(auditRecords, { action: 'mfa.factor_remove', targetUserId: session.userId, detail: { subjectId: factorId } });
    return removed;
  });
}

export interface EnrolPage {
  mode: 'enrol';
  totp: TotpEnrolment;
  /** When an owner, admin or operator reset the user's factors (they are told so), or null. */
  resetAt: string | null;
  /** Adding a further factor (from the factors page) rather than a first one. */
  adding: boolean;
}

export interface PresentPage {
  mode: 'present';
  passkey: boolean;
  totp: boolean;
  /** Code entry is locked until then (ISO), or null. */
  lockedUntil: string | null;
}

/** The enrolment page: a new TOTP secret for this session, and any reset the user must be told of. */
export async function readEnrolPage(ctx: MfaContext, session: PortalSession): Promise<EnrolPage> {
  const factors = await requireManaging(ctx, session);
  const [totp, user] = await Promise.all([beginTotpEnrolment(ctx, session), findMfaUser(ctx.db, ids(session))]);
  return { mode: 'enrol', totp, resetAt: user?.mfa_reset_at ?? null, adding: factors.length > 0 };
}

/** The factor page: enrolment for a user without a factor, else the factors they can present. */
export async function readFactorPage(ctx: MfaContext, session: PortalSession): Promise<EnrolPage | PresentPage> {
  const factors = await findFactorsOf(ctx.db, ids(session));
  if (factors.length === 0) return readEnrolPage(ctx, session);
  const locked = await lockedUntil(ctx, session);
  return { mode: 'present', passkey: factors.some((f) => f.kind === 'passkey'), totp: factors.some((f) => f.kind === 'totp'), lockedUntil: locked?.toISOString() ?? null };
}
