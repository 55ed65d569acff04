// Queries of prescriptions. Every read by SCID or list is scoped to an organization and a
// patient, so another organization's prescription is never found. The list reads the
// (organization_id, patient_id, created_at, id) index backwards from a page position.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, PrescriptionsTable } from '../platform/db/database-schema.ts';
import type { PrescriptionStatus } from '../platform/db/stored-values.ts';
import type { Awaitable } from '../platform/awaitable.ts';
import { precompileQuery } from '../platform/db/precompiled-query.ts';
import { isUuid } from '../platform/ids.ts';
import type { PagePosition } from './prescription-paging.ts';

export type PrescriptionRow = Selectable<PrescriptionsTable>;

export async function insertPrescription(trx: Kysely<Database>, row: Insertable<PrescriptionsTable>): Promise<void> {
  await trx.insertInto('prescriptions').values(row).execute();
}

/**
 * The prescriber's next script number (1 for their first prescription), taken inside `trx`: the
 * upsert locks the prescriber's counter row until the transaction ends, so concurrent
 * prescriptions of one prescriber are numbered one after another, and a rollback gives the
 * number back.
 */
export async function takeNextPrescriberScriptNumber(trx: Kysely<Database>, prescriberUserId: string): Promise<number> {
  const row = await trx
    .insertInto('prescriber_script_numbers')
    .values({ user_id: prescriberUserId, last_number: 1 })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ last_number: sql<number>`prescriber_script_numbers.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return Number(row.last_number);
}

/** By SCID, or by erx's id (a UUID: a Pending prescription has no SCID yet). */
export async function findPrescriptionOfPatient(db: Kysely<Database>, organizationId: string, patientId: string, scid: string): Promise<PrescriptionRow | undefined> {
  return db
    .selectFrom('prescriptions')
    .selectAll()
    .where(isUuid(scid) ? 'id' : 'scid', '=', scid)
    .where('organization_id', '=', organizationId)
    .where('patient_id', '=', patientId)
    .executeTakeFirst();
}

/** The organization's prescription with this id (erx's own unique id), whatever its patient. */
export async function findPrescriptionById(db: Kysely<Database>, organizationId: string, id: string): Promise<PrescriptionRow | undefined> {
  return db.selectFrom('prescriptions').selectAll().where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
}

/** The prescription with this SCID, within an organization when one is named (the sandbox's dispense). */
export async function findPrescriptionByScid(db: Kysely<Database>, scid: string, organizationId?: string): Promise<PrescriptionRow | undefined> {
  let query = db.selectFrom('prescriptions').selectAll().where('scid', '=', scid);
  if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId);
  return query.executeTakeFirst();
}

/** What a PDS submission may have changed of a prescription since it was written. */
export async function findSubmissionColumns(db: Kysely<Database>, id: string) {
  return db
    .selectFrom('prescriptions')
    .select(['status', 'scid', 'error_description', 'updated_at', 'supplies_dispensed', 'repeats_remaining', 'last_dispensed_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** What a prescription's token page key comes from: its id, or the key it kept sealed (made before keys were derived). */
export async function findTokenPageKeySource(db: Kysely<Database>, prescriptionId: string): Promise<{ id: string; token_page_key_encrypted: string | null } | undefined> {
  return db.selectFrom('prescriptions').select(['id', 'token_page_key_encrypted']).where('id', '=', prescriptionId).executeTakeFirst();
}

/** The prescription whose token page this is, by its key's stored hash (no tenant to scope by). */
export async function findPrescriptionByToken(db: Kysely<Database>, storedForm: string): Promise<PrescriptionRow | undefined> {
  return db.selectFrom('prescriptions').selectAll().where('token', '=', storedForm).executeTakeFirst();
}

type PageParams = { organizationId: string; patientId: string; take: number };

const firstPage = precompileQuery<PageParams, PrescriptionRow>((db, param) =>
  db
    .selectFrom('prescriptions')
    .selectAll()
    .where('organization_id', '=', param('organizationId'))
    .where('patient_id', '=', param('patientId'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(param('take')),
);

const pageAfter = precompileQuery<PageParams & { createdAt: string; id: string }, PrescriptionRow>((db, param) =>
  db
    .selectFrom('prescriptions')
    .selectAll()
    .where('organization_id', '=', param('organizationId'))
    .where('patient_id', '=', param('patientId'))
    .where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(param('createdAt'), param('id'))))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(param('take')),
);

/** How many of the patient's prescriptions sort at or before a position (newest first): a walk's offset after it. */
export async function countPrescriptionsThrough(db: Kysely<Database>, scope: { organizationId: string; patientId: string }, position: { createdAt: string; id: string }): Promise<number> {
  const row = await db
    .selectFrom('prescriptions')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
    .where('organization_id', '=', scope.organizationId)
    .where('patient_id', '=', scope.patientId)
    .where((eb) => eb(eb.refTuple('created_at', 'id'), '>=', eb.tuple(position.createdAt, position.id)))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Up to `take` of the patient's prescriptions, newest first, strictly after `after` when given. */
export function listPrescriptionsOfPatient(
  db: Kysely<Database>,
  scope: { organizationId: string; patientId: string },
  after: PagePosition | undefined,
  take: number,
): Awaitable<PrescriptionRow[]> {
  const params = { organizationId: scope.organizationId, patientId: scope.patientId, take };
  return after ? pageAfter(db, { ...params, createdAt: after.createdAt, id: after.id }) : firstPage(db, params);
}

/**
 * Applies `changes` only while the prescription still has status `from`; false when it no
 * longer does (another change won the race), so a transition is never applied twice.
 */
export async function updatePrescriptionInStatus(
  trx: Kysely<Database>,
  id: string,
  from: PrescriptionStatus,
  changes: Updateable<PrescriptionsTable>,
): Promise<boolean> {
  const result = await trx.updateTable('prescriptions').set(changes).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether the partner has validated the organization (the spec: no events before validate). */
export async function isOrganizationValidatedBy(db: Kysely<Database>, organizationId: string, partnerId: string): Promise<boolean> {
  const row = await db
    .selectFrom('organization_partners')
    .select('validated_at')
    .where('organization_id', '=', organizationId)
    .where('partner_id', '=', partnerId)
    .where('validated_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}
