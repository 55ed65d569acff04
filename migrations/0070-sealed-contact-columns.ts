// Issue 38 item 1: nothing readable with the database alone that would reach a patient. Token
// messages keep no body (it held the working token link): the message is composed when it is
// sent, from the prescriber's name kept here and the token-page key derived from the secret key.
// Destinations, draft bodies, concession and entitlement numbers are AES-256-GCM ciphertext, so
// their columns are renamed to say so. Migrations have no secret key: the values already stored
// in clear are sealed by the startup step every process runs (src/platform/db/sealed-columns.ts).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('token_messages').addColumn('prescriber_name', 'text', (c) => c.notNull().defaultTo('')).execute();
  // The prescriber as the prescription names them: what the body said besides the link.
  await db
    .updateTable('token_messages')
    .set({
      prescriber_name: sql`(select trim(coalesce(p.prescriber_title || ' ', '') || p.prescriber_given_name || ' ' || p.prescriber_family_name)
        from prescriptions p where p.id = token_messages.prescription_id)`,
    })
    .where(sql<boolean>`exists (select 1 from prescriptions p where p.id = token_messages.prescription_id)`)
    .execute();
  await db.schema.alterTable('token_messages').dropColumn('body').execute();
  await db.schema.alterTable('token_messages').renameColumn('destination', 'destination_encrypted').execute();
  await db.schema.alterTable('prescriptions').renameColumn('delivery_destination', 'delivery_destination_encrypted').execute();
  await db.schema.alterTable('prescription_drafts').renameColumn('body', 'body_encrypted').execute();
  await db.schema.alterTable('patients').renameColumn('concession_pension_number', 'concession_pension_number_encrypted').execute();
  await db.schema.alterTable('patients').renameColumn('entitlement_number', 'entitlement_number_encrypted').execute();
}
