// The sso feature's retention steps (registered in features.ts): SSO tokens a day past expiry
// (kept that long so a late click is told "expired" rather than "unknown"), and portal sessions
// idle past the timeout or past their longest life. Each batch statement picks at most `limit`
// rows and repeats its condition on the rows it deletes, so on PostgreSQL a row another
// instance deleted first is passed over, not counted twice.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { changedRows, countOf, secondsBefore, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';
import { EXPIRED_TOKENS_KEPT_SECONDS, SESSION_MAX_AGE_SECONDS, type SsoContext } from './sso-service.ts';

type Db = Kysely<Database>;

interface SessionCutoffs {
  /** Sessions last seen before this were idle past the timeout. */
  idleSince: string;
  /** Sessions opened before this are past their longest life. */
  openedBefore: string;
}

export function createSsoRetentionSteps(ctx: Pick<SsoContext, 'idleTimeoutSeconds'>): RetentionStep[] {
  const tokensBefore = (now: Date) => secondsBefore(now, EXPIRED_TOKENS_KEPT_SECONDS);
  const sessions = (now: Date): SessionCutoffs => ({ idleSince: secondsBefore(now, ctx.idleTimeoutSeconds), openedBefore: secondsBefore(now, SESSION_MAX_AGE_SECONDS) });
  return [
    singleKindStep({
      name: 'sso_tokens',
      table: 'sso_tokens',
      cutoffs: (now) => ({ ssoTokens: tokensBefore(now) }),
      count: (db, now) => countOf(db.selectFrom('sso_tokens').select((eb) => eb.fn.countAll<string>().as('n')).where('expires_at', '<', tokensBefore(now))),
      batch: (trx, now, limit) => deleteSsoTokensBatch(trx, tokensBefore(now), limit),
    }),
    singleKindStep({
      name: 'portal_sessions',
      table: 'portal_sessions',
      setting: 'ERX_PORTAL_IDLE_TIMEOUT_SECONDS',
      cutoffs: (now) => ({ sessionsIdleSince: sessions(now).idleSince, sessionsOpenedBefore: sessions(now).openedBefore }),
      count: (db, now) => countOf(endedSessions(db, sessions(now)).select((eb) => eb.fn.countAll<string>().as('n'))),
      batch: (trx, now, limit) => deletePortalSessionsBatch(trx, sessions(now), limit),
    }),
  ];
}

async function deleteSsoTokensBatch(trx: Db, expiredBefore: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('sso_tokens')
    .where('expires_at', '<', expiredBefore)
    .where('token_hash', 'in', (eb) => eb.selectFrom('sso_tokens').select('token_hash').where('expires_at', '<', expiredBefore).limit(limit))
    .executeTakeFirst();
  return changedRows(result);
}

function endedSessions(db: Db, cutoffs: SessionCutoffs) {
  return db.selectFrom('portal_sessions').where((eb) => eb.or([eb('last_seen_at', '<', cutoffs.idleSince), eb('created_at', '<', cutoffs.openedBefore)]));
}

async function deletePortalSessionsBatch(trx: Db, cutoffs: SessionCutoffs, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('portal_sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', cutoffs.idleSince), eb('created_at', '<', cutoffs.openedBefore)]))
    .where('session_hash', 'in', endedSessions(trx, cutoffs).select('session_hash').limit(limit))
    .executeTakeFirst();
  return changedRows(result);
}
