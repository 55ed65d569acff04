// The security alerts' queries: counts added to a bucket (inserted or summed, so instances add
// to the same row), read for `erx audit alerts`, deleted past their retention.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';

type Db = Kysely<Database>;
export type SecurityAlertRow = Database['security_alerts'];

/** Adds each row's count to its bucket (minute, address, endpoint, reason), creating it with its claimed ids. */
export async function addSecurityAlertCounts(db: Db, rows: readonly SecurityAlertRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('security_alerts')
    .values(rows as SecurityAlertRow[])
    .onConflict((conflict) =>
      conflict.columns(['minute', 'client_address', 'endpoint', 'reason']).doUpdateSet((eb) => ({
        count: eb('security_alerts.count', '+', eb.ref('excluded.count')),
        last_at: eb.ref('excluded.last_at'),
      })),
    )
    .execute();
}

export async function findSecurityAlerts(db: Db, filter: { since?: string; clientAddress?: string }, limit: number): Promise<SecurityAlertRow[]> {
  let query = db.selectFrom('security_alerts').selectAll();
  if (filter.since !== undefined) query = query.where('last_at', '>=', filter.since);
  if (filter.clientAddress !== undefined) query = query.where('client_address', '=', filter.clientAddress);
  const rows = await query.orderBy('minute', 'desc').orderBy('count', 'desc').limit(limit).execute();
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

export async function countSecurityAlertsBefore(db: Db, before: string): Promise<number> {
  const row = await db.selectFrom('security_alerts').select((eb) => eb.fn.countAll<number | string>().as('n')).where('last_at', '<', before).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the oldest buckets whose last refusal came before `before`, about `limit` of them (ties at the edge go too). */
export async function deleteSecurityAlertsBatch(db: Db, before: string, limit: number): Promise<number> {
  const edge = await db.selectFrom('security_alerts').select('last_at').where('last_at', '<', before).orderBy('last_at').offset(limit - 1).limit(1).executeTakeFirst();
  let query = db.deleteFrom('security_alerts').where('last_at', '<', before);
  if (edge) query = query.where('last_at', '<=', edge.last_at);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
