// Queries of the portal's one-time form ids (migration 0011).
import type { Kysely, Selectable } from 'kysely';
import type { Database, PortalFormIdsTable } from '../platform/db/database-schema.ts';

export type PortalFormRow = Selectable<PortalFormIdsTable>;

/** Claims the form for this post; false when another post claimed it first. */
export async function claimPortalForm(db: Kysely<Database>, row: Omit<PortalFormRow, 'result'>): Promise<boolean> {
  const inserted = await db
    .insertInto('portal_form_ids')
    .values({ ...row, result: null })
    .onConflict((conflict) => conflict.column('form_id').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findPortalForm(db: Kysely<Database>, formId: string): Promise<PortalFormRow | undefined> {
  return db.selectFrom('portal_form_ids').selectAll().where('form_id', '=', formId).executeTakeFirst();
}

export async function settlePortalForm(db: Kysely<Database>, formId: string, result: string): Promise<void> {
  await db.updateTable('portal_form_ids').set({ result }).where('form_id', '=', formId).execute();
}

export async function releasePortalForm(db: Kysely<Database>, formId: string): Promise<void> {
  await db.deleteFrom('portal_form_ids').where('form_id', '=', formId).where('result', 'is', null).execute();
}
