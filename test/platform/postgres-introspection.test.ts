// What Kysely's migrator sees of PostgreSQL (src/platform/db/postgres-schema-introspector.ts).
// Runs whenever a PostgreSQL answers, in both suites: on the SQLite run at the local server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresIntrospector, sql, type Kysely } from 'kysely';
import { CurrentSchemaPostgresIntrospector } from '../../src/platform/db/postgres-schema-introspector.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { shouldRunWith } from '../service-availability.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../test-app.ts';

const POSTGRES_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = await shouldRunWith('PostgreSQL', POSTGRES_URL);

describe.runIf(run)('introspection on PostgreSQL', () => {
  let ours: TestDatabase;
  let other: TestDatabase;
  beforeAll(async () => {
    [ours, other] = await Promise.all([createTestDatabase(POSTGRES_URL), createTestDatabase(POSTGRES_URL)]);
  });
  afterAll(async () => {
    await Promise.all([ours?.drop(), other?.drop()]);
  });

  /**
   * Reads with `introspect` in a transaction whose snapshot predates a rename in the other
   * schema: the catalogs the query scans still show the old name, while a lookup by name sees
   * the newest catalog. This is the moment CI once hit by chance, made certain.
   */
  async function introspectAcrossRename<T>(introspect: (db: Kysely<any>) => Promise<T>): Promise<T> {
    const renamed = `t_${Math.random().toString(36).slice(2, 10)}`;
    await sql`create table ${sql.table(renamed)} (id integer)`.execute(other.handle);
    return ours.handle.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await sql`alter table ${sql.table(renamed)} rename to ${sql.table(`${renamed}_away`)}`.execute(other.handle);
      return introspect(trx);
    });
  }

  // The control: should a Kysely upgrade make this pass, its own introspector is safe again
  // and postgres-schema-introspector.ts can go.
  it("fails with Kysely's stock introspector when another schema's table is renamed meanwhile", async () => {
    await expect(introspectAcrossRename((db) => new PostgresIntrospector(db).getTables())).rejects.toThrow(/does not exist/);
  });

  it("lists this schema's tables unmoved by the same rename in another schema", async () => {
    const tables = await introspectAcrossRename((db) => db.introspection.getTables());
    expect(tables.map((table) => table.name)).toContain('patients');
    expect(new Set(tables.map((table) => table.schema))).toEqual(new Set([ours.schema]));
  });

  it('leaves out Kysely’s bookkeeping tables unless asked for them', async () => {
    const introspector = new CurrentSchemaPostgresIntrospector(ours.handle);
    const names = async (withInternalKyselyTables: boolean) =>
      (await introspector.getTables({ withInternalKyselyTables })).map((table) => table.name);
    expect(await names(false)).not.toContain('kysely_migration');
    expect(await names(true)).toEqual(expect.arrayContaining(['kysely_migration', 'kysely_migration_lock', 'patients']));
  });

  it('describes columns as Kysely does: type, nullability, default, sequence ownership, comment; views apart', async () => {
    const db = ours.handle;
    await sql`create table shapes (
      serial_id serial primary key,
      identity_id integer generated always as identity,
      plain integer,
      named text not null default 'x',
      stamp timestamptz
    )`.execute(db);
    await sql`comment on column shapes.named is 'what it is called'`.execute(db);
    await sql`alter table shapes drop column plain`.execute(db);
    await sql`create view shape_names as select named from shapes`.execute(db);
    const { tables } = await new CurrentSchemaPostgresIntrospector(db).getMetadata();
    const shapes = tables.find((table) => table.name === 'shapes');
    expect(shapes).toEqual({
      name: 'shapes',
      schema: ours.schema,
      isView: false,
      columns: [
        { name: 'serial_id', dataType: 'int4', dataTypeSchema: 'pg_catalog', isNullable: false, hasDefaultValue: true, isAutoIncrementing: true, comment: undefined },
        { name: 'identity_id', dataType: 'int4', dataTypeSchema: 'pg_catalog', isNullable: false, hasDefaultValue: false, isAutoIncrementing: true, comment: undefined },
        { name: 'named', dataType: 'text', dataTypeSchema: 'pg_catalog', isNullable: false, hasDefaultValue: true, isAutoIncrementing: false, comment: 'what it is called' },
        { name: 'stamp', dataType: 'timestamptz', dataTypeSchema: 'pg_catalog', isNullable: true, hasDefaultValue: false, isAutoIncrementing: false, comment: undefined },
      ],
    });
    expect(tables.find((table) => table.name === 'shape_names')).toMatchObject({ isView: true, columns: [{ name: 'named', dataType: 'text' }] });
  });

  it('migrates two schemas at once, each keeping its own bookkeeping; a second run has nothing to do', async () => {
    expect(await migrateToLatest(ours.handle)).toEqual({ applied: [] });
    const { rows } = await sql<{ schema: string }>`
      select table_schema as schema from information_schema.tables where table_name = 'kysely_migration' and table_schema in (${ours.schema}, ${other.schema})`.execute(ours.handle);
    expect(rows.map((row) => row.schema).sort()).toEqual([ours.schema, other.schema].sort());
  });
});
