// Queries of the idempotency keys. A key belongs to one partner and organization.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../platform/db/database-schema.ts';

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

export interface KeyScope {
  partnerId: string;
  organizationId: string;
  key: string;
}

function ofScope(scope: KeyScope) {
  return { partner_id: scope.partnerId, organization_id: scope.organizationId, idempotency_key: scope.key };
}

/** Claims the key; false when a row for it exists already. */
export async function insertIdempotencyKey(db: Kysely<Database>, row: Insertable<IdempotencyKeysTable>): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['partner_id', 'organization_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findIdempotencyKey(db: Kysely<Database>, scope: KeyScope): Promise<IdempotencyKeyRow | undefined> {
  const { partner_id, organization_id, idempotency_key } = ofScope(scope);
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('partner_id', '=', partner_id)
    .where('organization_id', '=', organization_id)
    .where('idempotency_key', '=', idempotency_key)
    .executeTakeFirst();
}

/**
 * Takes over a row that expired, or whose first request was abandoned: only if it is still
 * as it was read (`staleAt` is the `locked_until` seen), so two takers cannot both win.
 */
export async function takeOverIdempotencyKey(
  db: Kysely<Database>,
  scope: KeyScope,
  staleAt: string,
  row: Pick<IdempotencyKeysTable, 'fingerprint' | 'state' | 'created_at' | 'locked_until' | 'expires_at'>,
): Promise<boolean> {
  const { partner_id, organization_id, idempotency_key } = ofScope(scope);
  const result = await db
    .updateTable('idempotency_keys')
    .set({ ...row, response_status: null, response_body: null })
    .where('partner_id', '=', partner_id)
    .where('organization_id', '=', organization_id)
    .where('idempotency_key', '=', idempotency_key)
    .where('locked_until', '=', staleAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function storeIdempotentResponse(db: Kysely<Database>, scope: KeyScope, status: number, body: string): Promise<void> {
  const { partner_id, organization_id, idempotency_key } = ofScope(scope);
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('partner_id', '=', partner_id)
    .where('organization_id', '=', organization_id)
    .where('idempotency_key', '=', idempotency_key)
    .execute();
}

export async function deleteIdempotencyKey(db: Kysely<Database>, scope: KeyScope): Promise<void> {
  const { partner_id, organization_id, idempotency_key } = ofScope(scope);
  await db
    .deleteFrom('idempotency_keys')
    .where('partner_id', '=', partner_id)
    .where('organization_id', '=', organization_id)
    .where('idempotency_key', '=', idempotency_key)
    .execute();
}

export async function deleteExpiredIdempotencyKeys(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
}
