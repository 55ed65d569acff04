// The idempotency feature's retention step (registered in features.ts): keys whose 24 hours
// are over (expires_at at or before now, as the hook reads them) are deleted, in batches.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { changedRows, countOf, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';

type Db = Kysely<Database>;

export function createIdempotencyRetentionStep(): RetentionStep {
  return singleKindStep({
    name: 'idempotency_keys',
    table: 'idempotency_keys',
    cutoffs: (now) => ({ idempotencyKeys: now.toISOString() }),
    count: (db, now) => countIdempotencyKeys(db, now.toISOString()),
    batch: (trx, now, limit) => deleteIdempotencyKeysBatch(trx, now.toISOString(), limit),
  });
}

async function deleteIdempotencyKeysBatch(trx: Db, now: string, limit: number): Promise<number> {
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
  return changedRows(result);
}

function countIdempotencyKeys(db: Db, now: string): Promise<number> {
  return countOf(db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll<string>().as('n')).where('expires_at', '<=', now));
}
