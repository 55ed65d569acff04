// Queries that prune what expires on its own: receivers' response bodies on old attempts,
// idempotency keys, SSO tokens, portal sessions and the one-time form ids of sessions gone.
// Each batch statement picks at most `limit` rows through an index (or a small table) and
// repeats its condition on the rows it changes, so on PostgreSQL a row another instance
// changed first is passed over, not counted twice.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';

type Db = Kysely<Database>;

const removed = (result: { numDeletedRows: bigint } | { numUpdatedRows: bigint }) =>
  Number('numDeletedRows' in result ? result.numDeletedRows : result.numUpdatedRows);
const countOf = async (query: { executeTakeFirstOrThrow(): Promise<{ n: string | number | bigint }> }) => Number((await query.executeTakeFirstOrThrow()).n);

/** Attempts started before `before` that still hold the receiver's response body. */
export async function clearResponseBodiesBatch(trx: Db, before: string, limit: number): Promise<number> {
  const result = await trx
    .updateTable('webhook_attempts')
    .set({ response_body: null })
    .where('response_body', 'is not', null)
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('delivery_id', 'attempt_number'),
        'in',
        selectFrom('webhook_attempts').select(['delivery_id', 'attempt_number']).where('started_at', '<', before).where('response_body', 'is not', null).limit(limit).$asTuple('delivery_id', 'attempt_number'),
      ),
    )
    .executeTakeFirst();
  return removed(result);
}

/** Keys whose 24 hours are over (expires_at at or before `now`, as the idempotency feature reads them). */
export async function deleteIdempotencyKeysBatch(trx: Db, now: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', now)
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('partner_id', 'organization_id', 'idempotency_key'),
        'in',
        selectFrom('idempotency_keys').select(['partner_id', 'organization_id', 'idempotency_key']).where('expires_at', '<=', now).limit(limit).$asTuple('partner_id', 'organization_id', 'idempotency_key'),
      ),
    )
    .executeTakeFirst();
  return removed(result);
}

export function countIdempotencyKeys(db: Db, now: string): Promise<number> {
  return countOf(db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll<string>().as('n')).where('expires_at', '<=', now));
}

export async function deleteSsoTokensBatch(trx: Db, expiredBefore: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('sso_tokens')
    .where('expires_at', '<', expiredBefore)
    .where('token_hash', 'in', (eb) => eb.selectFrom('sso_tokens').select('token_hash').where('expires_at', '<', expiredBefore).limit(limit))
    .executeTakeFirst();
  return removed(result);
}

export function countSsoTokens(db: Db, expiredBefore: string): Promise<number> {
  return countOf(db.selectFrom('sso_tokens').select((eb) => eb.fn.countAll<string>().as('n')).where('expires_at', '<', expiredBefore));
}

export interface SessionCutoffs {
  /** Sessions last seen before this were idle past the timeout. */
  idleSince: string;
  /** Sessions opened before this are past their longest life. */
  openedBefore: string;
}

function endedSessions(db: Db, cutoffs: SessionCutoffs) {
  return db.selectFrom('portal_sessions').where((eb) => eb.or([eb('last_seen_at', '<', cutoffs.idleSince), eb('created_at', '<', cutoffs.openedBefore)]));
}

export async function deletePortalSessionsBatch(trx: Db, cutoffs: SessionCutoffs, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('portal_sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', cutoffs.idleSince), eb('created_at', '<', cutoffs.openedBefore)]))
    .where('session_hash', 'in', endedSessions(trx, cutoffs).select('session_hash').limit(limit))
    .executeTakeFirst();
  return removed(result);
}

export function countPortalSessions(db: Db, cutoffs: SessionCutoffs): Promise<number> {
  return countOf(endedSessions(db, cutoffs).select((eb) => eb.fn.countAll<string>().as('n')));
}

/** Form ids whose session is gone (ended, signed out, pruned): no post can present them again. */
function orphanFormIds(db: Db) {
  return db
    .selectFrom('portal_form_ids as f')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('portal_sessions as s').select('s.session_hash').whereRef('s.session_hash', '=', 'f.session_hash'))));
}

export async function deletePortalFormIdsBatch(trx: Db, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('portal_form_ids')
    .where('form_id', 'in', orphanFormIds(trx).select('f.form_id').limit(limit))
    .executeTakeFirst();
  return removed(result);
}

export function countPortalFormIds(db: Db): Promise<number> {
  return countOf(orphanFormIds(db).select((eb) => eb.fn.countAll<string>().as('n')));
}
