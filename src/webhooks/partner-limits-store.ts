// Queries behind the limits of partner self-service (partner-webhooks.ts): one recover at a
// time and spaced pings, each taken by one conditional update of the partner's row (so two
// instances, or two requests at once, cannot both take it), and the count of waiting replays.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';

/** Takes the partner's recover until `until` if none runs at `now`; whether it was taken. */
export async function takePartnerRecover(db: Kysely<Database>, partnerId: string, now: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('partners')
    .set({ webhook_recover_until: until })
    .where('id', '=', partnerId)
    .where((eb) => eb.or([eb('webhook_recover_until', 'is', null), eb('webhook_recover_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Moves the end of the recover the caller took (still `taken`) to `until` (null: ended). */
export async function endPartnerRecoverAt(db: Kysely<Database>, partnerId: string, taken: string, until: string | null): Promise<void> {
  await db.updateTable('partners').set({ webhook_recover_until: until }).where('id', '=', partnerId).where('webhook_recover_until', '=', taken).execute();
}

export async function findPartnerRecoverUntil(db: Kysely<Database>, partnerId: string): Promise<string | null> {
  const row = await db.selectFrom('partners').select('webhook_recover_until').where('id', '=', partnerId).executeTakeFirst();
  return row?.webhook_recover_until ?? null;
}

/** Records a ping at `now` unless the last was after `notBefore`; whether it was recorded (else: the last ping's time). */
export async function takePartnerPing(db: Kysely<Database>, partnerId: string, now: string, notBefore: string): Promise<true | string> {
  const result = await db
    .updateTable('partners')
    .set({ webhook_pinged_at: now })
    .where('id', '=', partnerId)
    .where((eb) => eb.or([eb('webhook_pinged_at', 'is', null), eb('webhook_pinged_at', '<=', notBefore)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return true;
  const row = await db.selectFrom('partners').select('webhook_pinged_at').where('id', '=', partnerId).executeTakeFirst();
  return row?.webhook_pinged_at ?? now;
}

/** The partner's replays (its own and the operator's) not yet delivered or failed. */
export async function countPendingReplays(db: Kysely<Database>, partnerId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('partner_id', '=', partnerId)
    .where('status', '=', 'pending')
    .where('reason', '=', 'replay')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
