// Queries of prescription drafts (the approval queue). Every query is scoped to an
// organization; a draft leaves `waiting` by a conditional update only, so of two decisions
// racing, one changes the row and the other changes nothing.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, PrescriptionDraftsTable } from '../platform/db/database-schema.ts';

export type DraftRow = Selectable<PrescriptionDraftsTable>;

/** A draft with its patient's and people's names, as the queue shows it. */
export interface DraftListing extends DraftRow {
  patient_given_name: string;
  patient_family_name: string;
  patient_date_of_birth: string;
  prescriber_name: string;
  prepared_by_name: string;
}

export async function insertDraft(trx: Kysely<Database>, row: Insertable<PrescriptionDraftsTable>): Promise<void> {
  await trx.insertInto('prescription_drafts').values(row).execute();
}

function listings(db: Kysely<Database>, organizationId: string) {
  return db
    .selectFrom('prescription_drafts as d')
    .innerJoin('patients as p', 'p.id', 'd.patient_id')
    .innerJoin('users as rx', 'rx.id', 'd.prescriber_user_id')
    .innerJoin('users as qm', 'qm.id', 'd.prepared_by_user_id')
    .selectAll('d')
    .select([
      'p.given_name as patient_given_name',
      'p.family_name as patient_family_name',
      'p.date_of_birth as patient_date_of_birth',
      'rx.full_name as prescriber_name',
      'qm.full_name as prepared_by_name',
    ])
    .where('d.organization_id', '=', organizationId);
}

/** The drafts `userId` prepared or that are named to them, newest first (at most `limit`). */
export async function listDraftsOfUser(db: Kysely<Database>, organizationId: string, userId: string, limit: number): Promise<DraftListing[]> {
  return listings(db, organizationId)
    .where((eb) => eb.or([eb('d.prescriber_user_id', '=', userId), eb('d.prepared_by_user_id', '=', userId)]))
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** The draft, if `userId` prepared it or it is named to them (else none: another's draft is not found). */
export async function findDraftOfUser(db: Kysely<Database>, organizationId: string, userId: string, draftId: string): Promise<DraftListing | undefined> {
  return listings(db, organizationId)
    .where('d.id', '=', draftId)
    .where((eb) => eb.or([eb('d.prescriber_user_id', '=', userId), eb('d.prepared_by_user_id', '=', userId)]))
    .executeTakeFirst();
}

/** Moves a waiting draft to its decision; false when it was not waiting (already decided). */
export async function decideDraft(
  trx: Kysely<Database>,
  draftId: string,
  decision: { status: 'approved' | 'declined'; scid: string | null; decline_reason: string | null; decided_by_user_id: string; decided_at: string },
): Promise<boolean> {
  const result = await trx.updateTable('prescription_drafts').set(decision).where('id', '=', draftId).where('status', '=', 'waiting').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A draft approved while its prescription waited for the PDS names it by erx's id; once the PDS assigned the SCID, by the SCID. */
export async function nameApprovedDraftsBySCID(trx: Kysely<Database>, prescriptionId: string, scid: string): Promise<void> {
  await trx.updateTable('prescription_drafts').set({ scid }).where('scid', '=', prescriptionId).where('status', '=', 'approved').execute();
}
