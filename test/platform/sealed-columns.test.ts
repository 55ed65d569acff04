// Values stored in clear before migrations 0070 and 0071 made their columns ciphertext: 0070 keeps
// what a pending token message needs besides the link (its prescriber's name) and drops the body
// that held the link; every process then seals what is still in clear when it starts
// (sealClearValues, run by runtime.ts), once: a second run finds nothing. An HPI-I gets its keyed
// hash beside it, which its lookups use. Migrations 0081 and 0082 do the same for a patient's
// phone and e-mail, and for a token page key kept in clear (hashClearTokenPageKeys): its hash
// replaces it, the key itself sealed beside it.
import { afterEach, describe, expect, it } from 'vitest';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts';
import { migrateToLatest, MIGRATIONS } from '../../src/platform/db/migrator.ts';
import { findClearTokenPageKeys, findUnsealed, hashClearTokenPageKeys, HPII_HASH_PURPOSE, SEALED_COLUMNS, sealClearValues } from '../../src/platform/db/sealed-columns.ts';
import { decryptSecret, encryptSecret, hashSecret, keyedHashOf } from '../../src/platform/secrets.ts';
import { dropSchemas } from '../global-setup.ts';
import { call, useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, prescriptionsPath } from '../prescriptions/prescriptions-given.ts';
import { newTestSchemaName, TEST_DATABASE_URL } from '../test-app.ts';
import { loadConfig } from '../../src/config.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { createCliEnvironment } from '../cli/cli-helpers.ts';

const KEY = Buffer.alloc(32, 7);
const SEALING = ['0070-sealed-contact-columns', '0071-sealed-hpii'];
const CONTACTS_AND_KEYS = ['0081-sealed-patient-contacts', '0082-sealed-token-page-keys'];
const UNSEALED_INDEXES = ['0083-unsealed-value-indexes'];
const BEFORE_0070 = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => ![...SEALING, ...CONTACTS_AND_KEYS, ...UNSEALED_INDEXES].includes(name)));
const BEFORE_0081 = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => ![...CONTACTS_AND_KEYS, ...UNSEALED_INDEXES].includes(name)));
const HPII = '8003619166667284';

let opened: { handle: DatabaseHandle; schema: string | undefined } | undefined;
afterEach(async () => {
  await opened?.handle.close();
  if (TEST_DATABASE_URL && opened?.schema) await dropSchemas(TEST_DATABASE_URL, [opened.schema]);
  opened = undefined;
});

/** Inserts a row giving every required column a filler value, then `values`. */
async function insertFilled(db: Kysely<any>, table: string, values: Record<string, unknown>): Promise<void> {
  const columns = (await opened!.handle.introspection.getTables()).find((t) => t.name === table)!.columns;
  const row: Record<string, unknown> = {};
  for (const column of columns) {
    if (column.isNullable || column.hasDefaultValue) continue;
    row[column.name] = /int|numeric|real/i.test(column.dataType) ? 0 : `filler-${column.name}`;
  }
  await db.insertInto(table).values({ ...row, ...values }).execute();
}

/** Rows written without their parents (the test needs only these three tables' columns). */
async function withoutForeignKeys(handle: DatabaseHandle, write: (db: Kysely<any>) => Promise<void>): Promise<void> {
  const db = handle as unknown as Kysely<any>;
  if (handle.kind === 'sqlite') {
    await sql`pragma foreign_keys = off`.execute(db);
    await write(db);
    await sql`pragma foreign_keys = on`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await write(trx);
  });
}

/** A fresh database (its own schema on PostgreSQL) with every migration but those in `left`; dropped after the test. */
async function openMigratedUpTo(left: Parameters<typeof migrateToLatest>[1]) {
  const schema = TEST_DATABASE_URL ? newTestSchemaName('seal') : undefined;
  const handle = await openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: schema });
  opened = { handle, schema };
  await migrateToLatest(handle, left);
  return { handle, db: handle as unknown as Kysely<any> };
}

describe('migration 0070 and the startup step', () => {
  it("keep a pending message's prescriber, drop its link, and seal every destination and number kept in clear, once", async () => {
    const { handle, db } = await openMigratedUpTo(BEFORE_0070);
    await withoutForeignKeys(handle, async (trx) => {
      await insertFilled(trx, 'prescriptions', { id: 'rx-1', prescriber_title: 'Dr', prescriber_given_name: 'Anna', prescriber_family_name: 'Smith', delivery_destination: '0412345678', prescriber_hpii: HPII });
      await insertFilled(trx, 'provider_records', { user_id: 'u-1', hpii_number: HPII, status: 'active' });
      await insertFilled(trx, 'patients', { id: 'pt-1', concession_pension_number: 'CP-1', entitlement_number: null });
      await insertFilled(trx, 'token_messages', {
        id: 'tm-1',
        prescription_id: 'rx-1',
        destination: '0412345678',
        body: 'Dr Anna Smith has sent you an electronic prescription. Show this link to your pharmacy: https://erx.example/tokens/key-in-clear',
        status: 'pending',
      });
    });
    expect((await migrateToLatest(handle)).applied).toEqual([...SEALING, ...CONTACTS_AND_KEYS, ...UNSEALED_INDEXES]);
    const message = await db.selectFrom('token_messages').selectAll().where('id', '=', 'tm-1').executeTakeFirstOrThrow();
    expect(message).toMatchObject({ prescriber_name: 'Dr Anna Smith', destination_encrypted: '0412345678' });
    expect(JSON.stringify(message)).not.toContain('/tokens/');

    expect(await sealClearValues(handle, KEY)).toBe(5);
    const provider = await db.selectFrom('provider_records').select(['hpii_number_encrypted', 'hpii_number_hash']).executeTakeFirstOrThrow();
    expect(decryptSecret(provider.hpii_number_encrypted, KEY)).toBe(HPII);
    expect(provider.hpii_number_hash).toBe(keyedHashOf(HPII_HASH_PURPOSE, HPII, KEY));
    const { prescriber_hpii_encrypted: copied } = await db.selectFrom('prescriptions').select('prescriber_hpii_encrypted').executeTakeFirstOrThrow();
    expect(decryptSecret(copied, KEY)).toBe(HPII);
    const sealed = await db.selectFrom('token_messages').select('destination_encrypted as value').executeTakeFirstOrThrow();
    const prescription = await db.selectFrom('prescriptions').select('delivery_destination_encrypted as value').executeTakeFirstOrThrow();
    const patient = await db.selectFrom('patients').select(['concession_pension_number_encrypted as value', 'entitlement_number_encrypted as none']).executeTakeFirstOrThrow();
    for (const { value } of [sealed, prescription, patient]) expect(value).toMatch(/^v1\./);
    expect(decryptSecret(sealed.value, KEY)).toBe('0412345678');
    expect(decryptSecret(prescription.value, KEY)).toBe('0412345678');
    expect(decryptSecret(patient.value, KEY)).toBe('CP-1');
    expect(patient.none).toBeNull();
    expect(await sealClearValues(handle, KEY)).toBe(0);
  });
});

describe('migrations 0081, 0082 and the startup step', () => {
  it("seal a patient's phone and e-mail kept in clear, and hash a token page key kept in clear, sealing the key beside it, once", async () => {
    const { handle, db } = await openMigratedUpTo(BEFORE_0081);
    const olderKey = 'OlderErxKeyInClear_0a1';
    const derivedHash = 'a'.repeat(64);
    await withoutForeignKeys(handle, async (trx) => {
      await insertFilled(trx, 'patients', { id: 'pt-1', phone: '0412345678', email: 'j.wood@example.com' });
      await insertFilled(trx, 'prescriptions', { id: 'rx-old', token: olderKey, prescriber_script_number: '1' });
      await insertFilled(trx, 'prescriptions', { id: 'rx-new', token: derivedHash, prescriber_script_number: '2' });
    });
    expect((await migrateToLatest(handle)).applied).toEqual([...CONTACTS_AND_KEYS, ...UNSEALED_INDEXES]);
    expect(await sealClearValues(handle, KEY)).toBe(2);
    expect(await hashClearTokenPageKeys(handle, KEY)).toBe(1);
    const patient = await db.selectFrom('patients').select(['phone_encrypted', 'email_encrypted']).executeTakeFirstOrThrow();
    expect(decryptSecret(patient.phone_encrypted, KEY)).toBe('0412345678');
    expect(decryptSecret(patient.email_encrypted, KEY)).toBe('j.wood@example.com');
    const rows = await db.selectFrom('prescriptions').select(['id', 'token', 'token_page_key_encrypted']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'rx-new', token: derivedHash, token_page_key_encrypted: null },
      { id: 'rx-old', token: hashSecret(olderKey), token_page_key_encrypted: expect.stringMatching(/^v1\./) },
    ]);
    expect(decryptSecret(rows[1]!.token_page_key_encrypted, KEY)).toBe(olderKey);
    expect(await sealClearValues(handle, KEY)).toBe(0);
    expect(await hashClearTokenPageKeys(handle, KEY)).toBe(0);
  });
});

describe('a value sealed by the startup step', () => {
  const { t, c } = useTestApp({}, async (app) => ({ c: await givenClinic(app) }));

  it('reads as it did in clear', async () => {
    const prescription = await givenPrescription(t, c);
    const where = (db: typeof t.deps.database) => db.updateTable('prescriptions').where('scid', '=', prescription.scid);
    const { delivery_destination_encrypted: stored } = await t.deps.database.selectFrom('prescriptions').select('delivery_destination_encrypted').where('scid', '=', prescription.scid).executeTakeFirstOrThrow();
    const clear = decryptSecret(stored!, t.deps.secretKey);
    await where(t.deps.database).set({ delivery_destination_encrypted: clear }).execute();
    expect(await sealClearValues(t.deps.database, t.deps.secretKey)).toBe(1);
    const read = await call(t, 'GET', `${prescriptionsPath(c)}/${prescription.scid}`, c.headers);
    expect(read.json().data.prescription.delivery.destination).toBe(clear);
    expect(encryptSecret(clear, t.deps.secretKey)).not.toBe(clear);
  });
});

describe('a process that starts', () => {
  it('seals what is still in clear before anything reads it', async () => {
    const cli = createCliEnvironment();
    try {
      const config = loadConfig(cli.env);
      const first = await assembleDeps(config);
      const at = new Date().toISOString();
      // A message an older erx wrote: its destination in clear.
      await first.database
        .insertInto('token_messages')
        .values({ id: 'tm-old', prescription_id: 'rx-old', organization_id: 'org-old', channel: 'SMS', destination_encrypted: '0412345678', prescriber_name: 'Dr A', status: 'sent', next_attempt_at: at, created_at: at, completed_at: at })
        .execute();
      await closeDeps(first);
      const next = await assembleDeps(config);
      try {
        const { destination_encrypted: stored } = await next.database.selectFrom('token_messages').select('destination_encrypted').where('id', '=', 'tm-old').executeTakeFirstOrThrow();
        expect(stored).toMatch(/^v1\./);
        expect(decryptSecret(stored, next.secretKey)).toBe('0412345678');
      } finally {
        await closeDeps(next);
      }
    } finally {
      await cli.cleanup();
    }
  });
});

describe('migration 0083', () => {
  /** The plan the database chooses for a scan, as one line of text; on PostgreSQL with sequential scans discouraged, so an index it can use is used even on an empty table. */
  async function planOf(handle: DatabaseHandle, query: CompiledQuery): Promise<string> {
    if (handle.kind === 'sqlite') {
      const plan = await handle.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      return plan.rows.map((row) => row.detail).join('\n');
    }
    return handle.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const plan = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
      return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('gives every startup scan a partial index of the rows still in clear, so a start reads no table once all is sealed', async () => {
    const { handle } = await openMigratedUpTo(MIGRATIONS);
    for (const sealed of SEALED_COLUMNS) {
      expect(await planOf(handle, findUnsealed(handle, sealed).compile()), `${sealed.table}.${sealed.column}`).toContain(`${sealed.table}_${sealed.column}_unsealed`);
    }
    expect(await planOf(handle, findClearTokenPageKeys(handle).compile())).toContain('prescriptions_token_in_clear');
  });
});
