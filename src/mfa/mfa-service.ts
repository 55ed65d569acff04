// Prescriber MFA (issue 39, DESIGN decision 26): when a portal session must present a factor,
// and presenting one (a TOTP code or a recovery code here; passkeys in passkeys.ts). A session
// whose user must enrol or present reaches only the MFA pages; a step-up asks for a factor
// presented within FRESH_FACTOR_SECONDS, and for enrolment first whatever the organization's
// policy. Wrong codes are counted per user (apart from every other budget) and lock that
// user's code entry; every verification, refused or not, is audited and counted.
import type { Kysely } from 'kysely';
import { auditRecords, type AuditTrail } from '../audit/index.ts';
import type { Deps } from '../deps.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { MfaPolicy } from '../platform/db/stored-values.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { newId } from '../platform/ids.ts';
import { NO_METRICS, type Metrics } from '../platform/metrics/metrics.ts';
import { decryptSecret, hashSecret } from '../platform/secrets.ts';
import { notePortalFactorPresented, type PortalSession } from '../sso/index.ts';
import {
  claimTotpStep,
  deleteFailuresOf,
  findFactorsOf,
  findOrganizationMfaPolicy,
  findRecentFailures,
  insertFailure,
  spendRecoveryCode,
  type MfaFactorRow,
} from './mfa-store.ts';
import { matchTotp } from './totp.ts';

export interface MfaContext {
  db: Kysely<Database>;
  clock: Clock;
  unitOfWork: UnitOfWork;
  audit: AuditTrail;
  metrics: Metrics;
  /** Encrypts TOTP secrets at rest. */
  secretKey: Buffer;
  /** An organization without a policy of its own: required in production, optional in the sandbox. */
  defaultPolicy: MfaPolicy;
  /** WebAuthn's relying party: ERX_PORTAL_URL's host, and its origin. */
  rpId: string;
  origin: string;
}

export function createMfaContext(deps: Pick<Deps, 'database' | 'clock' | 'config' | 'secretKey' | 'metrics'>, features: { unitOfWork: UnitOfWork; audit: AuditTrail }): MfaContext {
  const portal = new URL(deps.config.portalUrl);
  return {
    db: deps.database,
    clock: deps.clock,
    unitOfWork: features.unitOfWork,
    audit: features.audit,
    metrics: deps.metrics ?? NO_METRICS,
    secretKey: deps.secretKey,
    defaultPolicy: deps.config.mode === 'production' ? 'required' : 'optional',
    rpId: portal.hostname,
    origin: portal.origin,
  };
}

/** A presented factor holds for the session this long (NIST SP 800-63B-4: re-authenticate at least every 12 hours). */
export const FACTOR_PRESENTED_SECONDS = 12 * 3600;
/** A step-up needs a factor presented within this long. */
export const FRESH_FACTOR_SECONDS = 5 * 60;
/** Wrong codes that lock a user's code entry, within LOCK_WINDOW_SECONDS; the lock lasts LOCK_SECONDS. */
export const LOCK_AFTER_FAILURES = 5;
export const LOCK_WINDOW_SECONDS = 15 * 60;
export const LOCK_SECONDS = 15 * 60;

/** What a session must do before a page: nothing (`open`), enrol a first factor, or present one. */
export type FactorGate = 'open' | 'enrol' | 'present';

/** Thrown by requireFreshFactor (and by the portal's gate): the page that asks for the factor is shown instead. */
export class FactorRequired extends Error {
  override name = 'FactorRequired';
  constructor(
    readonly need: 'enrol' | 'present',
    /** A step-up: a factor presented within FRESH_FACTOR_SECONDS. */
    readonly stepUp: boolean,
  ) {
    super(need === 'enrol' ? 'enrol a factor first' : stepUp ? 'present a factor again' : 'present a factor');
  }
}

type SessionUser = Pick<PortalSession, 'organizationId' | 'userId'>;
const idsOf = (session: SessionUser) => ({ organizationId: session.organizationId, userId: session.userId });

function presentedWithin(ctx: MfaContext, session: Pick<PortalSession, 'factorPresentedAt'>, seconds: number): boolean {
  if (!session.factorPresentedAt) return false;
  const age = (ctx.clock.now().getTime() - Date.parse(session.factorPresentedAt)) / 1000;
  return age >= 0 && age <= seconds;
}

export async function policyOf(ctx: MfaContext, organizationId: string): Promise<MfaPolicy> {
  return (await findOrganizationMfaPolicy(ctx.db, organizationId))?.policy ?? ctx.defaultPolicy;
}

/** Whether the user holds a factor (read user's mfa_enrolled). */
export async function userHoldsFactor(ctx: MfaContext, user: SessionUser): Promise<boolean> {
  return (await findFactorsOf(ctx.db, idsOf(user))).length > 0;
}

export async function factorsOf(ctx: MfaContext, session: SessionUser): Promise<MfaFactorRow[]> {
  return findFactorsOf(ctx.db, idsOf(session));
}

/**
 * The gate of every session page. Where the organization requires MFA, a user without a factor
 * enrols; a user holding a factor presents it once per session, again after 12 hours (an
 * optional organization does not let an enrolled user skip their own factor).
 */
export async function factorGateOf(ctx: MfaContext, session: PortalSession): Promise<FactorGate> {
  const [policy, factors] = await Promise.all([policyOf(ctx, session.organizationId), findFactorsOf(ctx.db, idsOf(session))]);
  if (factors.length === 0) return policy === 'required' ? 'enrol' : 'open';
  return presentedWithin(ctx, session, FACTOR_PRESENTED_SECONDS) ? 'open' : 'present';
}

/** A step-up's gate: enrolled whatever the policy, and a factor presented within 5 minutes. */
export async function stepUpGateOf(ctx: MfaContext, session: PortalSession): Promise<FactorGate> {
  const factors = await findFactorsOf(ctx.db, idsOf(session));
  if (factors.length === 0) return 'enrol';
  return presentedWithin(ctx, session, FRESH_FACTOR_SECONDS) ? 'open' : 'present';
}

/**
 * For an action that needs a fresh factor (a step-up) decided inside a handler or service, e.g.
 * signing a controlled medicine: returns when the session's user presented a factor within 5
 * minutes, else throws FactorRequired, which the portal answers with the factor page (it
 * returns to the page the action was posted from). Pages whose every post needs one declare
 * `auth: { kind: 'session', factor: 'fresh' }` instead.
 */
export async function requireFreshFactor(ctx: MfaContext, session: PortalSession): Promise<void> {
  const gate = await stepUpGateOf(ctx, session);
  if (gate !== 'open') throw new FactorRequired(gate, true);
}

/** Whether a factor was presented in this session recently enough to enrol another or manage them. */
export function sessionMayManageFactors(ctx: MfaContext, session: PortalSession, factors: readonly MfaFactorRow[]): boolean {
  return factors.length === 0 || presentedWithin(ctx, session, FACTOR_PRESENTED_SECONDS);
}

export type CodeOutcome = { ok: true } | { ok: false; reason: 'wrong' } | { ok: false; reason: 'locked'; retryAfterSeconds: number };

const secondsBefore = (at: Date, seconds: number) => new Date(at.getTime() - seconds * 1000).toISOString();

/** When the user's code entry is locked: until 15 minutes after the 5th wrong code within 15 minutes. */
export async function lockedUntil(ctx: MfaContext, session: SessionUser): Promise<Date | undefined> {
  const now = ctx.clock.now();
  const recent = await findRecentFailures(ctx.db, idsOf(session), secondsBefore(now, LOCK_WINDOW_SECONDS + LOCK_SECONDS), LOCK_AFTER_FAILURES);
  if (recent.length < LOCK_AFTER_FAILURES) return undefined;
  const newest = Date.parse(recent[0]!);
  const oldest = Date.parse(recent[LOCK_AFTER_FAILURES - 1]!);
  const until = new Date(newest + LOCK_SECONDS * 1000);
  return newest - oldest <= LOCK_WINDOW_SECONDS * 1000 && until > now ? until : undefined;
}

/** The session presented a factor: noted on the session, with its audit entries, and the user's wrong codes forgotten. */
export async function notePresented(ctx: MfaContext, session: PortalSession, how: { method: 'passkey' | 'totp' | 'recovery_code'; factorId?: string; stepUp: boolean }, change?: (trx: Kysely<Database>) => Promise<boolean>): Promise<boolean> {
  const at = ctx.clock.now().toISOString();
  const done = await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (change && !(await change(trx))) return false;
    await notePortalFactorPresented(trx, session.sessionHash, at);
    await deleteFailuresOf(trx, idsOf(session));
    const detail = { reason: how.method, ...(how.factorId ? { subjectId: how.factorId } : {}) };
    record(auditRecords, { action: 'mfa.verify', targetUserId: session.userId, detail });
    if (how.method === 'recovery_code') record(auditRecords, { action: 'mfa.recovery_used', targetUserId: session.userId });
    if (how.stepUp) record(auditRecords, { action: 'mfa.step_up', targetUserId: session.userId, detail });
    return true;
  });
  if (done) ctx.metrics.recordMfaVerification(how.method, 'success');
  return done;
}

/** A refused verification: counted toward the lockout when it was a wrong code, audited, measured. */
export async function noteRefused(ctx: MfaContext, session: SessionUser, method: 'passkey' | 'totp' | 'recovery_code', reason: 'wrong' | 'locked' | 'invalid'): Promise<void> {
  const at = ctx.clock.now().toISOString();
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (reason === 'wrong') await insertFailure(trx, { id: newId(), organization_id: session.organizationId, user_id: session.userId, failed_at: at });
    record(auditRecords, { action: 'mfa.verify', outcome: 'refused', targetUserId: session.userId, detail: { reason: `${method}:${reason}` } });
  });
  ctx.metrics.recordMfaVerification(method, reason === 'locked' ? 'locked' : 'refused');
}

async function refuseIfLocked(ctx: MfaContext, session: PortalSession, method: 'totp' | 'recovery_code'): Promise<CodeOutcome | undefined> {
  const until = await lockedUntil(ctx, session);
  if (!until) return undefined;
  await noteRefused(ctx, session, method, 'locked');
  return { ok: false, reason: 'locked', retryAfterSeconds: Math.ceil((until.getTime() - ctx.clock.now().getTime()) / 1000) };
}

/** A TOTP code from any of the user's TOTP factors; each code works once (its step is claimed). */
export async function verifyTotpCode(ctx: MfaContext, session: PortalSession, code: string, stepUp: boolean): Promise<CodeOutcome> {
  const locked = await refuseIfLocked(ctx, session, 'totp');
  if (locked) return locked;
  const cleaned = code.replace(/\s+/g, '');
  const now = ctx.clock.now();
  for (const factor of await findFactorsOf(ctx.db, idsOf(session))) {
    if (factor.kind !== 'totp' || !factor.totp_secret_encrypted) continue;
    const secret = Buffer.from(decryptSecret(factor.totp_secret_encrypted, ctx.secretKey), 'base64');
    const step = matchTotp(secret, cleaned, now, factor.totp_last_step);
    if (step === undefined) continue;
    const claimed = await notePresented(ctx, session, { method: 'totp', factorId: factor.id, stepUp }, (trx) => claimTotpStep(trx, factor.id, step, now.toISOString()));
    if (claimed) return { ok: true };
  }
  await noteRefused(ctx, session, 'totp', 'wrong');
  return (await refuseIfLockedQuietly(ctx, session)) ?? { ok: false, reason: 'wrong' };
}

/** After a wrong code: the lock it may have started (not noted again). */
async function refuseIfLockedQuietly(ctx: MfaContext, session: PortalSession): Promise<CodeOutcome | undefined> {
  const until = await lockedUntil(ctx, session);
  return until && { ok: false, reason: 'locked', retryAfterSeconds: Math.ceil((until.getTime() - ctx.clock.now().getTime()) / 1000) };
}

/** Recovery codes are read without case, spaces or dashes. */
export function normalizeRecoveryCode(code: string): string {
  return code.replace(/[\s-]+/g, '').toLowerCase();
}

/** A recovery code of the user, spent (it works once). */
export async function verifyRecoveryCode(ctx: MfaContext, session: PortalSession, code: string, stepUp: boolean): Promise<CodeOutcome> {
  const locked = await refuseIfLocked(ctx, session, 'recovery_code');
  if (locked) return locked;
  const normalized = normalizeRecoveryCode(code);
  if (normalized.length > 0 && normalized.length <= 40) {
    const at = ctx.clock.now().toISOString();
    const spent = await notePresented(ctx, session, { method: 'recovery_code', stepUp }, (trx) => spendRecoveryCode(trx, idsOf(session), hashSecret(normalized), at));
    if (spent) return { ok: true };
  }
  await noteRefused(ctx, session, 'recovery_code', 'wrong');
  return (await refuseIfLockedQuietly(ctx, session)) ?? { ok: false, reason: 'wrong' };
}
