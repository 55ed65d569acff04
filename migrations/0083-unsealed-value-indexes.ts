// Every process seals, when it starts, the values still in clear in a column that became
// ciphertext (src/platform/db/sealed-columns.ts, after 0070, 0071, 0081 and 0082). Without an
// index each start read every row of those tables, every CLI command included, long after the
// last clear value was sealed. Each column gets a partial index of its rows still in clear,
// empty once sealing is done, so the startup scan reads an empty index; a value an older erx
// writes in clear later is in it and is sealed at the next start. The index's condition is the
// scan's, word for word (unsealedCondition), so both planners can use it.
import { sql, type Kysely } from 'kysely';

const UNSEALED: readonly { table: string; id: string; column: string }[] = [
  { table: 'token_messages', id: 'id', column: 'destination_encrypted' },
  { table: 'prescriptions', id: 'id', column: 'delivery_destination_encrypted' },
  { table: 'prescription_drafts', id: 'id', column: 'body_encrypted' },
  { table: 'patients', id: 'id', column: 'concession_pension_number_encrypted' },
  { table: 'patients', id: 'id', column: 'entitlement_number_encrypted' },
  { table: 'patients', id: 'id', column: 'phone_encrypted' },
  { table: 'patients', id: 'id', column: 'email_encrypted' },
  { table: 'provider_records', id: 'user_id', column: 'hpii_number_encrypted' },
  { table: 'prescriptions', id: 'id', column: 'prescriber_hpii_encrypted' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { table, id, column } of UNSEALED) {
    await sql`create index ${sql.id(`${table}_${column}_unsealed`)} on ${sql.table(table)} (${sql.id(id)}, ${sql.id(column)}) where ${sql.raw(`"${column}" <> '' and substr("${column}", 1, 3) <> 'v1.'`)}`.execute(db);
  }
  await sql`create index prescriptions_token_in_clear on prescriptions (id, token) where length(token) = 22`.execute(db);
}
