// A portal request's session: found by the hash of its cookie value, with the facts the
// request depends on read each time (the user still enabled in the organization, the partner
// still enabled there, the organization's HPI-O, the partner's frame origins), so revoking
// any of them ends the session at its next request. A session idle longer than the timeout,
// or older than SESSION_MAX_AGE_SECONDS, is ended (deleted) when it is next presented.
import { auditRecords } from '../audit/index.ts';
import { parseStoredRoles, type Role } from '../auth/index.ts';
import { decryptSecret, hashSecret } from '../platform/secrets.ts';
import type { EventMetadata } from '../webhooks/index.ts';
import { parseFrameOrigins, SESSION_MAX_AGE_SECONDS, type SsoContext } from './sso-service.ts';
import { deletePortalSession, findPortalSession, markFactorPresented, touchPortalSession, type PortalSessionRow } from './sso-store.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';

/** One user of one organization, signed in through one partner's SSO link. */
export interface PortalSession {
  partnerId: string;
  organizationId: string;
  /** As of this request. */
  organizationHpio: string | null;
  userId: string;
  /** The user's roles as of this request (a role change applies at the next page). */
  roles: readonly Role[];
  /** The session's key (the hash of its cookie): what its forms' one-time ids are tied to. */
  sessionHash: string;
  /** The SSO link's reserved_1..3: every event this session causes carries them. */
  reserved: EventMetadata;
  /** What this session's CSRF tokens are made from. */
  csrfSecret: string;
  /** As of this request (none: framing refused). */
  frameOrigins: string[];
  /** When this session's user last presented an MFA factor (null: not in this session). */
  factorPresentedAt: string | null;
}

/**
 * last_seen_at is written at most once a minute per session rather than on every page view,
 * so the idle timeout is honoured to within a minute.
 */
const TOUCH_INTERVAL_SECONDS = 60;

const secondsBetween = (from: string, to: Date) => (to.getTime() - Date.parse(from)) / 1000;

function isLive(ctx: SsoContext, row: PortalSessionRow, now: Date): boolean {
  return row.user_enabled === 1 && secondsBetween(row.last_seen_at, now) <= ctx.idleTimeoutSeconds && secondsBetween(row.created_at, now) <= SESSION_MAX_AGE_SECONDS;
}

/** The session's CSRF secret, stored encrypted; undefined for one that cannot be read (opened before it was encrypted). */
function csrfSecretOf(ctx: SsoContext, row: PortalSessionRow): string | undefined {
  try {
    return decryptSecret(row.csrf_secret, ctx.secretKey);
  } catch {
    return undefined;
  }
}

function sessionOf(row: PortalSessionRow, csrfSecret: string): PortalSession {
  return {
    partnerId: row.partner_id,
    organizationId: row.organization_id,
    organizationHpio: row.organization_hpio,
    userId: row.user_id,
    roles: parseStoredRoles(row.user_roles),
    sessionHash: row.session_hash,
    reserved: { reserved_1: row.reserved_1, reserved_2: row.reserved_2, reserved_3: row.reserved_3 },
    csrfSecret,
    frameOrigins: parseFrameOrigins(row.frame_origins),
    factorPresentedAt: row.factor_presented_at,
  };
}

/** The live session this cookie value opens, or undefined (no such session, ended, idle too long). */
export async function findLivePortalSession(ctx: SsoContext, sessionId: string | undefined): Promise<PortalSession | undefined> {
  if (sessionId === undefined || sessionId === '') return undefined;
  const sessionHash = hashSecret(sessionId);
  const row = await findPortalSession(ctx.db, sessionHash);
  if (!row) return undefined;
  const now = ctx.clock.now();
  const csrfSecret = csrfSecretOf(ctx, row);
  if (!isLive(ctx, row, now) || csrfSecret === undefined) {
    await deletePortalSession(ctx.db, sessionHash);
    return undefined;
  }
  if (secondsBetween(row.last_seen_at, now) >= TOUCH_INTERVAL_SECONDS) await touchPortalSession(ctx.db, sessionHash, now.toISOString());
  return sessionOf(row, csrfSecret);
}

/** Signs out: the session is deleted, whichever instance is asked next, with its auth.portal_sign_out entry (the session's user acts). */
export async function endPortalSession(ctx: SsoContext, sessionId: string): Promise<void> {
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await deletePortalSession(trx, hashSecret(sessionId));
    record(auditRecords, { action: 'auth.portal_sign_out' });
  });
}

/** Inside the caller's transaction (the mfa feature's): the session's user presented an MFA factor at `at`. */
export async function notePortalFactorPresented(trx: Kysely<Database>, sessionHash: string, at: string): Promise<void> {
  await markFactorPresented(trx, sessionHash, at);
}
