// The columns that hold AES-256-GCM ciphertext (`encryptSecret` under the secret key) but were
// once kept in clear, and the token page keys once kept in clear. Migrations have no secret key,
// so a migration that turned a column into ciphertext (0070, 0071, 0081, 0082) only renamed or added it; every process seals what is still in clear when it starts
// (runtime.ts), before it serves or sends anything. A sealed value starts `v1.`; the scan looks
// for anything else, so once everything is sealed it finds nothing and writes nothing. Each scan
// reads a partial index of the rows still in clear (migration 0083, its condition word for word
// the scan's), so a start costs the same on a database of any size once sealing is done.
import { sql, type Kysely } from 'kysely';
import { encryptSecret, hashSecret, keyedHashOf } from '../secrets.ts';
import type { Database } from './database-schema.ts';

export interface SealedColumn {
  table: keyof Database;
  column: string;
  /** The row's key column (default `id`). */
  id?: string;
  /** A column holding the value's keyed hash (keyedHashOf with `purpose`), written with it. */
  hash?: { column: string; purpose: string };
}

/** keyedHashOf's purpose for an HPI-I (provider_records.hpii_number_hash). */
export const HPII_HASH_PURPOSE = 'erx hpii';

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'token_messages', column: 'destination_encrypted' },
  { table: 'prescriptions', column: 'delivery_destination_encrypted' },
  { table: 'prescription_drafts', column: 'body_encrypted' },
  { table: 'patients', column: 'concession_pension_number_encrypted' },
  { table: 'patients', column: 'entitlement_number_encrypted' },
  { table: 'patients', column: 'phone_encrypted' },
  { table: 'patients', column: 'email_encrypted' },
  { table: 'provider_records', column: 'hpii_number_encrypted', id: 'user_id', hash: { column: 'hpii_number_hash', purpose: HPII_HASH_PURPOSE } },
  { table: 'prescriptions', column: 'prescriber_hpii_encrypted' },
];

/**
 * A value still in clear: neither blank nor sealed. Literal text, not bound parameters, so each
 * planner proves it implies the condition of the column's partial index (migration 0083).
 */
function unsealedCondition(column: string) {
  return sql<boolean>`${sql.raw(`"${column}" <> '' and substr("${column}", 1, 3) <> 'v1.'`)}`;
}

/** A token page key kept in clear (made before keys were hashed) is its 22 characters, a stored hash 64; as its partial index (migration 0083) says it. */
const TOKEN_KEY_IN_CLEAR = sql<boolean>`length(token) = 22`;

/** Rows sealed per transaction: a large backlog is converted in short steps. */
const BATCH = 500;

/** The scan of one column: a batch of its values still in clear, by their row's key. */
export function findUnsealed(database: Kysely<Database>, { table, column, id = 'id' }: SealedColumn) {
  return (database as unknown as Kysely<any>)
    .selectFrom(table)
    .select([sql.ref<string>(id).as('id'), sql.ref<string>(column).as('value')])
    .where(unsealedCondition(column))
    .limit(BATCH)
    .$castTo<{ id: string; value: string }>();
}

/** The scan of token page keys still in clear. */
export function findClearTokenPageKeys(database: Kysely<Database>) {
  return database.selectFrom('prescriptions').select(['id', 'token']).where(TOKEN_KEY_IN_CLEAR).limit(BATCH);
}

/** Seals every clear value of SEALED_COLUMNS; the number of values sealed. Blanked values ('') stay blank. */
export async function sealClearValues(database: Kysely<Database>, secretKey: Buffer, columns: readonly SealedColumn[] = SEALED_COLUMNS): Promise<number> {
  const db = database as unknown as Kysely<any>;
  let sealed = 0;
  for (const { table, column, id = 'id', hash } of columns) {
    for (;;) {
      const rows = await findUnsealed(database, { table, column, id }).execute();
      if (rows.length === 0) break;
      await db.transaction().execute(async (trx) => {
        // Only if still the clear value read: a row changed meanwhile is sealed by its writer.
        for (const row of rows) {
          const sealed = { [column]: encryptSecret(row.value, secretKey), ...(hash ? { [hash.column]: keyedHashOf(hash.purpose, row.value, secretKey) } : {}) };
          await trx.updateTable(table).set(sealed).where(sql.ref(id), '=', row.id).where(sql.ref(column), '=', row.value).execute();
        }
      });
      sealed += rows.length;
    }
  }
  return sealed;
}

/**
 * Token page keys kept in clear in `prescriptions.token` (migration 0082): each becomes its
 * SHA-256 there, by which its page is found, and the key itself is sealed beside it for the
 * messages a reissue sends. The number of keys converted.
 */
export async function hashClearTokenPageKeys(database: Kysely<Database>, secretKey: Buffer): Promise<number> {
  let converted = 0;
  for (;;) {
    const rows = await findClearTokenPageKeys(database).execute();
    if (rows.length === 0) return converted;
    await database.transaction().execute(async (trx) => {
      for (const row of rows) {
        const hashed = { token: hashSecret(row.token), token_page_key_encrypted: encryptSecret(row.token, secretKey) };
        await trx.updateTable('prescriptions').set(hashed).where('id', '=', row.id).where('token', '=', row.token).execute();
      }
    });
    converted += rows.length;
  }
}
