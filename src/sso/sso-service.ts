// Single sign-on into the prescribing portal. A partner's server mints a token with the same
// five credentials as /v1/token (POST /v1/sso); the browser brings it to /auth/sso, which
// spends it (once, within 300 s) and opens a portal session for that user of that
// organization. Sessions live in the database, so any instance serves them; they end after
// an idle timeout (a setting) or 12 hours, whichever comes first. Tokens and session ids are
// random and stored only as hashes.
import { randomBytes } from 'node:crypto';
import { auditRecords, currentAuditScope, type AuditTrail, type SecurityAlerts } from '../audit/index.ts';
import type { Kysely } from 'kysely';
import { checkCredentialAttempt, missingCredentialHeaders, readTokenHeaders, screenCredentialAttempt, type AuthContext } from '../auth/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { invalidRequest, unauthorized } from '../platform/http/api-error.ts';
import { bodyFields, readBody, valueOrRefuse, type SubmittedBody } from '../platform/http/body-validation.ts';
import { encryptSecret, hashSecret } from '../platform/secrets.ts';
import type { Deps } from '../deps.ts';
import { readRedirectPath } from './redirect-path.ts';
import { SsoBody } from './sso-schemas.ts';
import {
  deletePortalSessionsOf,
  deletePortalSession,
  deleteStaleSignIns,
  deleteUnspentSsoTokens,
  findPartnerFrameOrigins,
  findSsoToken,
  insertPortalSession,
  markSsoReplayNoted,
  insertSsoToken,
  findAllowedSignIn,
  spendSsoToken,
  type SsoTokenRow,
} from './sso-store.ts';

export interface SsoContext {
  db: Kysely<Database>;
  clock: Clock;
  auth: AuthContext;
  /** The portal's origin: redirect_url is built on it. */
  portalUrl: string;
  idleTimeoutSeconds: number;
  /** Encrypts each session's CSRF secret at rest. */
  secretKey: Buffer;
  /** Every change commits through it, with the records it leaves (audit entries among them). */
  unitOfWork: UnitOfWork;
  /** Where refused sign-ins, which change nothing, are noted. */
  audit: AuditTrail;
  /** Where every replay of a used link is counted (the chain holds the first of each link). */
  securityAlerts: SecurityAlerts;
}

export function createSsoContext(deps: Pick<Deps, 'database' | 'clock' | 'config' | 'secretKey'>, features: { auth: AuthContext; unitOfWork: UnitOfWork; audit: AuditTrail; securityAlerts: SecurityAlerts }): SsoContext {
  return {
    db: deps.database,
    clock: deps.clock,
    secretKey: deps.secretKey,
    auth: features.auth,
    unitOfWork: features.unitOfWork,
    audit: features.audit,
    securityAlerts: features.securityAlerts,
    portalUrl: deps.config.portalUrl,
    idleTimeoutSeconds: deps.config.portalIdleTimeoutSeconds,
  };
}

/** The spec's lifetime of an SSO token. */
export const SSO_TOKEN_TTL_SECONDS = 300;
/** However active, a session ends this long after it opened: sign in again through the partner. */
export const SESSION_MAX_AGE_SECONDS = 12 * 3600;
/** Expired tokens are kept this long, so a late click is told "expired" rather than "unknown". */
export const EXPIRED_TOKENS_KEPT_SECONDS = 24 * 3600;

export const INVALID_PARTNER_CREDENTIALS = 'Invalid partner credentials';

/** 32 random bytes, base64url (43 characters): the form of SSO tokens and session ids. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function newBrowserSecret(): string {
  return randomBytes(32).toString('base64url');
}

const secondsAfter = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();

export interface MintedSsoToken {
  sso_token: string;
  redirect_url: string;
  expires_in: number;
}

/** Every missing credential header named at once: 400 `Missing required headers: a, b`. */
function readSsoHeaders(headers: Record<string, string | string[] | undefined>) {
  const missing = missingCredentialHeaders(headers);
  if (missing.length > 0) throw invalidRequest(`Missing required headers: ${missing.join(', ')}`);
  return readTokenHeaders(headers);
}

/**
 * POST /v1/sso: headers (400), ids that cannot be valid (401), an address locked out after
 * failed attempts (429), credentials (401), the pair's budget (429), then the body (422).
 */
export async function mintSsoToken(
  ctx: SsoContext,
  headers: Record<string, string | string[] | undefined>,
  submitted: SubmittedBody,
  address: string,
): Promise<MintedSsoToken> {
  const credentials = readSsoHeaders(headers);
  const attempt = { headers: credentials, address, endpoint: '/v1/sso' } as const;
  await screenCredentialAttempt(ctx.auth, attempt, INVALID_PARTNER_CREDENTIALS);
  const checked = await checkCredentialAttempt(ctx.auth, attempt);
  if (!checked) throw unauthorized(INVALID_PARTNER_CREDENTIALS);
  // No body at all reads as an empty one: the default path.
  const body: SubmittedBody = submitted.value === undefined ? { value: {}, issues: [] } : submitted;
  const sent = bodyFields(body).redirect_path;
  const read = readBody(SsoBody, body, {
    errors: (fields, refused) => (refused.has('redirect_path') ? [] : readRedirectPath(fields.redirect_path as string | undefined, ctx.portalUrl).issues),
    value: (fields) => readRedirectPath(fields.redirect_path, ctx.portalUrl).redirect,
  });
  const redirect = valueOrRefuse(read);
  if (!redirect) throw new Error('a redirect_path without issues must give a redirect');
  const token = newBrowserSecret();
  const now = ctx.clock.now();
  const actor = { kind: 'user', partnerId: checked.partnerId, organizationId: checked.organizationId, userId: checked.userId } as const;
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await insertSsoToken(trx, {
      token_hash: hashSecret(token),
      partner_id: checked.partnerId,
      organization_id: checked.organizationId,
      user_id: checked.userId,
      redirect_path: redirect.path,
      ...redirect.reserved,
      created_at: now.toISOString(),
      expires_at: secondsAfter(now, SSO_TOKEN_TTL_SECONDS),
      used_at: null,
    });
    record(auditRecords, { action: 'auth.sso_minted', actor, hpio: checked.organizationHpio, detail: { partnerId: checked.partnerId } });
  });
  const query = `token=${token}&redirect=${encodeURIComponent(typeof sent === 'string' ? sent : redirect.path)}`;
  return { sso_token: token, redirect_url: `${ctx.portalUrl}/auth/sso?${query}`, expires_in: SSO_TOKEN_TTL_SECONDS };
}

/** Origins allowed to frame the portal for a partner's users (none: framing refused). */
export function parseFrameOrigins(stored: string | undefined): string[] {
  return stored === undefined ? [] : (JSON.parse(stored) as string[]);
}

export type SignInRefusal = 'unknown' | 'used' | 'expired' | 'revoked';

export type SignInResult =
  | { ok: true; sessionId: string; redirectPath: string; frameOrigins: string[] }
  /** frameOrigins: those of the token's partner when the token is known, so its frame can show why. */
  | { ok: false; reason: SignInRefusal; frameOrigins: string[] };

/** Whether a token as read could still be spent (the spending statement decides for good). */
function isSpendable(row: SsoTokenRow | undefined, now: string): row is SsoTokenRow {
  return row !== undefined && row.used_at === null && row.expires_at > now;
}

/** Why a token that could not be spent was refused; a used one brought again is recorded (noteReplayedLink). */
async function refusalOf(ctx: SsoContext, row: SsoTokenRow | undefined, now: string): Promise<SignInResult> {
  if (!row) return { ok: false, reason: 'unknown', frameOrigins: [] };
  if (row.used_at !== null) await noteReplayedLink(ctx, row, now);
  const frameOrigins = parseFrameOrigins(await findPartnerFrameOrigins(ctx.db, row.partner_id));
  return { ok: false, reason: row.used_at !== null ? 'used' : row.expires_at <= now ? 'expired' : 'revoked', frameOrigins };
}

/**
 * A used link brought again: someone else may hold it (a shared screen, a browser history, a
 * proxy's log). Its first replay is an entry of the chain, auth.sso_spent refused, by whoever
 * brought it (anonymous), against the link's user and organization; every replay is counted in
 * the security alerts (per address and minute, with the link's ids), so replaying one link in a
 * loop adds one entry to the 7-year chain, not one a request.
 */
async function noteReplayedLink(ctx: SsoContext, row: SsoTokenRow, now: string): Promise<void> {
  const known = (value: string) => ({ value, wellFormed: true });
  await ctx.securityAlerts.note({
    endpoint: '/auth/sso',
    reason: 'link_replayed',
    clientAddress: currentAuditScope()?.clientAddress ?? null,
    claimed: { partnerId: known(row.partner_id), organizationId: known(row.organization_id), userId: known(row.user_id) },
  });
  if (row.replay_noted_at !== null) return;
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (!(await markSsoReplayNoted(trx, row.token_hash, now))) return;
    record(auditRecords, { action: 'auth.sso_spent', outcome: 'refused', organizationId: row.organization_id, targetUserId: row.user_id, detail: { partnerId: row.partner_id, reason: 'used' } });
  });
}

/**
 * A live link refused because its user or partner lost access since it was minted: noted as
 * auth.sso_spent, refused, by whoever brought it (anonymous), against the link's user. Unknown
 * and expired links are answered from a read alone and leave nothing, so that guessing costs no
 * write (the landing's address limit bounds it); a used link brought again is recorded
 * (noteReplayedLink).
 */
async function noteRefusedLanding(ctx: SsoContext, row: SsoTokenRow, reason: 'revoked'): Promise<void> {
  await ctx.audit.noteAccess({
    action: 'auth.sso_spent',
    outcome: 'refused',
    organizationId: row.organization_id,
    targetUserId: row.user_id,
    detail: { partnerId: row.partner_id, reason },
  });
}

/** Thrown inside the sign-in transaction to roll the spent token back. */
class SignInRevoked extends Error {}

/** Inside the sign-in transaction: the session the spent token opens (and stale rows swept out on the way). */
async function openSession(ctx: SsoContext, trx: Kysely<Database>, spent: SsoTokenRow, sessionId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await deleteStaleSignIns(trx, { tokensBefore: secondsAfter(now, -EXPIRED_TOKENS_KEPT_SECONDS), sessionsIdleSince: secondsAfter(now, -ctx.idleTimeoutSeconds) });
  await insertPortalSession(trx, {
    session_hash: hashSecret(sessionId),
    partner_id: spent.partner_id,
    organization_id: spent.organization_id,
    user_id: spent.user_id,
    reserved_1: spent.reserved_1,
    reserved_2: spent.reserved_2,
    reserved_3: spent.reserved_3,
    // Encrypted: with the database alone nobody can forge this session's forms.
    csrf_secret: encryptSecret(newBrowserSecret(), ctx.secretKey),
    created_at: at,
    last_seen_at: at,
  });
}

/**
 * GET /auth/sso: spends the token and opens a session, in one transaction, unless the user or
 * the partner lost access since the token was minted. An unknown or expired token is answered
 * from a read alone (guessing opens no transaction); a used one is recorded (noteReplayedLink).
 * The browser's earlier session (`previousSessionId`, its cookie) ends as the new one opens, so a
 * cookie copied before a sign-in does not outlive it.
 */
export async function signInWithSsoToken(ctx: SsoContext, token: string | undefined, previousSessionId?: string): Promise<SignInResult> {
  if (token === undefined || !SECRET_PATTERN.test(token)) return { ok: false, reason: 'unknown', frameOrigins: [] };
  const tokenHash = hashSecret(token);
  const now = ctx.clock.now();
  const known = await findSsoToken(ctx.db, tokenHash);
  if (!isSpendable(known, now.toISOString())) return refusalOf(ctx, known, now.toISOString());
  const sessionId = newBrowserSecret();
  const opened = await ctx.unitOfWork
    .run(async ({ trx, record }) => {
      const spent = await spendSsoToken(trx, tokenHash, now.toISOString());
      if (!spent) return undefined;
      const ids = { partnerId: spent.partner_id, organizationId: spent.organization_id, userId: spent.user_id };
      const allowed = await findAllowedSignIn(trx, ids);
      if (!allowed) throw new SignInRevoked();
      await openSession(ctx, trx, spent, sessionId, now);
      if (previousSessionId) await deletePortalSession(trx, hashSecret(previousSessionId));
      // Two facts of one landing: the link is spent, and a session is open (sign-out ends it).
      const signedIn = { actor: { kind: 'user', ...ids }, hpio: allowed.organizationHpio, detail: { partnerId: ids.partnerId } } as const;
      record(auditRecords, { action: 'auth.sso_spent', ...signedIn });
      record(auditRecords, { action: 'auth.portal_sign_in', ...signedIn });
      return spent;
    })
    .catch((error: unknown) => {
      if (error instanceof SignInRevoked) return null;
      throw error;
    });
  if (opened === undefined) return refusalOf(ctx, await findSsoToken(ctx.db, tokenHash), now.toISOString());
  if (opened === null) {
    await noteRefusedLanding(ctx, known, 'revoked');
    return { ok: false, reason: 'revoked', frameOrigins: [] };
  }
  const frameOrigins = parseFrameOrigins(await findPartnerFrameOrigins(ctx.db, opened.partner_id));
  return { ok: true, sessionId, redirectPath: opened.redirect_path, frameOrigins };
}

/**
 * Inside the caller's transaction, when an organization stops enabling a partner: the links it
 * minted there and nobody spent yet are deleted, and the sessions opened through it there end.
 */
export async function endSignInsThroughPartner(trx: Kysely<Database>, ids: { organizationId: string; partnerId: string }): Promise<{ sessions: number; links: number }> {
  const links = await deleteUnspentSsoTokens(trx, ids);
  const sessions = await deletePortalSessionsOf(trx, ids);
  return { sessions, links };
}

/** Ends the organization's portal sessions (only `userId`'s when given); how many ended. */
export async function endPortalSessionsOf(db: Kysely<Database>, filter: { organizationId: string; userId?: string | undefined }): Promise<number> {
  return deletePortalSessionsOf(db, filter);
}
