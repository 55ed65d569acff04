// Queries of SSO tokens and portal sessions. Both are found by the hash of the secret the
// browser holds; neither secret is stored.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, PortalSessionsTable, SsoTokensTable } from '../platform/db/database-schema.ts';

export type SsoTokenRow = Selectable<SsoTokensTable>;

export async function insertSsoToken(db: Kysely<Database>, row: Insertable<SsoTokensTable>): Promise<void> {
  await db.insertInto('sso_tokens').values(row).execute();
}

/**
 * Marks the token used, only if it is unused and unexpired, and returns it; undefined when it
 * was not (already used, expired, unknown). One statement, so two requests spending the same
 * token cannot both succeed.
 */
export async function spendSsoToken(trx: Kysely<Database>, tokenHash: string, now: string): Promise<SsoTokenRow | undefined> {
  return trx
    .updateTable('sso_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Marks a used token's first replay; true only for the request that marked it (one statement, so two replays at once cannot both be first). */
export async function markSsoReplayNoted(trx: Kysely<Database>, tokenHash: string, now: string): Promise<boolean> {
  const result = await trx
    .updateTable('sso_tokens')
    .set({ replay_noted_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is not', null)
    .where('replay_noted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findSsoToken(db: Kysely<Database>, tokenHash: string): Promise<SsoTokenRow | undefined> {
  return db.selectFrom('sso_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The partner's frame origins (JSON text), or undefined for an unknown partner. */
export async function findPartnerFrameOrigins(db: Kysely<Database>, partnerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('partners').select('frame_origins').where('id', '=', partnerId).executeTakeFirst();
  return row?.frame_origins;
}

/** The organization's HPI-O if the user still belongs to it, enabled, and it still enables the partner; else undefined. */
export async function findAllowedSignIn(
  db: Kysely<Database>,
  ids: { partnerId: string; organizationId: string; userId: string },
): Promise<{ organizationHpio: string | null } | undefined> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('organization_partners as op', (join) => join.onRef('op.organization_id', '=', 'u.organization_id').on('op.partner_id', '=', ids.partnerId))
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select('o.hpio')
    .where('u.id', '=', ids.userId)
    .where('u.organization_id', '=', ids.organizationId)
    .where('u.enabled', '=', 1)
    .executeTakeFirst();
  return row && { organizationHpio: row.hpio };
}

export async function insertPortalSession(trx: Kysely<Database>, row: Insertable<PortalSessionsTable>): Promise<void> {
  await trx.insertInto('portal_sessions').values(row).execute();
}

export interface PortalSessionRow extends Selectable<PortalSessionsTable> {
  user_enabled: number;
  /** The user's roles as they are now (JSON list). */
  user_roles: string;
  organization_hpio: string | null;
  frame_origins: string;
}

/**
 * The session with everything a request in it depends on, read each time: the user still in
 * the organization, the partner still enabled there (otherwise no row), the organization's
 * HPI-O and the partner's frame origins as they are now.
 */
export async function findPortalSession(db: Kysely<Database>, sessionHash: string): Promise<PortalSessionRow | undefined> {
  return db
    .selectFrom('portal_sessions as s')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 's.user_id').onRef('u.organization_id', '=', 's.organization_id'))
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    .innerJoin('partners as p', 'p.id', 's.partner_id')
    .innerJoin('organization_partners as op', (join) => join.onRef('op.organization_id', '=', 's.organization_id').onRef('op.partner_id', '=', 's.partner_id'))
    .selectAll('s')
    .select(['u.enabled as user_enabled', 'u.roles as user_roles', 'o.hpio as organization_hpio', 'p.frame_origins'])
    .where('s.session_hash', '=', sessionHash)
    .executeTakeFirst();
}

/** Notes, in the caller's transaction, that the session's user presented an MFA factor now. */
export async function markFactorPresented(trx: Kysely<Database>, sessionHash: string, at: string): Promise<void> {
  await trx.updateTable('portal_sessions').set({ factor_presented_at: at }).where('session_hash', '=', sessionHash).execute();
}

export async function touchPortalSession(db: Kysely<Database>, sessionHash: string, at: string): Promise<void> {
  await db.updateTable('portal_sessions').set({ last_seen_at: at }).where('session_hash', '=', sessionHash).execute();
}

export async function deletePortalSession(db: Kysely<Database>, sessionHash: string): Promise<void> {
  await db.deleteFrom('portal_sessions').where('session_hash', '=', sessionHash).execute();
}

/** Drops tokens that expired before `tokensBefore` and sessions idle since before `sessionsIdleSince`. */
export async function deleteStaleSignIns(trx: Kysely<Database>, cutoffs: { tokensBefore: string; sessionsIdleSince: string }): Promise<void> {
  await trx.deleteFrom('sso_tokens').where('expires_at', '<', cutoffs.tokensBefore).execute();
  await trx.deleteFrom('portal_sessions').where('last_seen_at', '<', cutoffs.sessionsIdleSince).execute();
  // The one-time form ids of sessions gone by any road (idle, signed out, ended).
  await trx.deleteFrom('portal_form_ids').where('session_hash', 'not in', trx.selectFrom('portal_sessions').select('session_hash')).execute();
}

/** Deletes the organization's sessions (only those opened through `partnerId`, or of `userId`, when given); how many. */
export async function deletePortalSessionsOf(
  db: Kysely<Database>,
  filter: { organizationId: string; partnerId?: string | undefined; userId?: string | undefined },
): Promise<number> {
  let query = db.deleteFrom('portal_sessions').where('organization_id', '=', filter.organizationId);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the SSO links the partner minted for the organization that no one has spent yet; how many. */
export async function deleteUnspentSsoTokens(db: Kysely<Database>, ids: { organizationId: string; partnerId: string }): Promise<number> {
  const result = await db
    .deleteFrom('sso_tokens')
    .where('organization_id', '=', ids.organizationId)
    .where('partner_id', '=', ids.partnerId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
