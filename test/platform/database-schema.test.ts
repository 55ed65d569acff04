// The table types (src/platform/db/database-schema.ts) against what the migrations make, on
// SQLite and on PostgreSQL: every table, every column, its nullability, its default and its
// coarse class. A column added to a migration without its type, or to the types without a
// migration, fails here. Runs the PostgreSQL half whenever a PostgreSQL answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { TABLES } from '../../src/platform/db/database-schema.ts';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { STORED_AS, text, type ColumnClass, type TableColumns } from '../../src/platform/db/table-columns.ts';
import { shouldRunWith } from '../service-availability.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../test-app.ts';

type Dialect = 'SQLite' | 'PostgreSQL';

interface MigratedColumn {
  table: string;
  column: string;
  type: string;
  not_null: boolean | number;
  has_default: boolean | number;
  primary_key: boolean | number;
}

/** Database type names (lower case, SQLite's as declared, PostgreSQL's from pg_type) by class. */
const CLASS_OF_TYPE: Readonly<Record<string, ColumnClass>> = {
  text: 'text', varchar: 'text', bpchar: 'text', 'character varying': 'text',
  integer: 'integer', int: 'integer', int2: 'integer', int4: 'integer', int8: 'integer', bigint: 'integer',
  real: 'real', float4: 'real', float8: 'real', numeric: 'real', 'double precision': 'real',
  blob: 'blob', bytea: 'blob',
  boolean: 'boolean', bool: 'boolean',
  timestamp: 'timestamp', timestamptz: 'timestamp', date: 'timestamp', datetime: 'timestamp',
  json: 'json', jsonb: 'json',
};

/** Every column of every table the migrations made (Kysely's bookkeeping left out). */
async function migratedColumns(db: Kysely<any>, dialect: Dialect): Promise<MigratedColumn[]> {
  const { rows } =
    dialect === 'SQLite'
      ? await sql<MigratedColumn>`
          select m.name as "table", p.name as "column", lower(p.type) as type, p."notnull" as not_null,
                 p.dflt_value is not null as has_default, p.pk > 0 as primary_key
          from sqlite_master m join pragma_table_info(m.name) p
          where m.type = 'table' and m.name not like 'sqlite_%' and m.name not like 'kysely_%'`.execute(db)
      : await sql<MigratedColumn>`
          select c.relname as "table", a.attname as "column", t.typname as type, a.attnotnull as not_null,
                 a.atthasdef as has_default, false as primary_key
          from pg_catalog.pg_class c
          join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
          join pg_catalog.pg_attribute a on a.attrelid = c.oid
          join pg_catalog.pg_type t on t.oid = a.atttypid
          where ns.nspname = current_schema() and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
            and c.relname not like 'kysely_%'`.execute(db);
  return rows;
}

/** A column as both sides can say it: `text not null default`. */
const described = (kind: ColumnClass | string, nullable: boolean, defaulted: boolean) =>
  `${kind} ${nullable ? 'null' : 'not null'}${defaulted ? ' default' : ''}`;

/** Each table's columns as the types declare them, in the class they are stored as. */
function typedSchema(tables: Readonly<Record<string, TableColumns>>): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(tables).map(([table, columns]) => [
      table,
      Object.fromEntries(Object.entries(columns).map(([name, c]) => [name, described(STORED_AS[c.kind], c.nullable, c.defaulted)])),
    ]),
  );
}

/**
 * Each table's columns as migrated. SQLite lets a text primary key hold null (a quirk kept for
 * compatibility); PostgreSQL does not, and no row ever has one, so a key column counts as not null.
 */
async function migratedSchema(db: Kysely<any>, dialect: Dialect): Promise<Record<string, Record<string, string>>> {
  const schema: Record<string, Record<string, string>> = {};
  for (const c of await migratedColumns(db, dialect)) {
    const kind = CLASS_OF_TYPE[c.type] ?? `unknown type ${c.type}`;
    (schema[c.table] ??= {})[c.column] = described(STORED_AS[kind as ColumnClass] ?? kind, !c.not_null && !c.primary_key, Boolean(c.has_default));
  }
  return schema;
}

const POSTGRES_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const databases: Array<{ dialect: Dialect; open(): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> }> = [
  {
    dialect: 'SQLite',
    async open() {
      const handle = await openDatabase({});
      await migrateToLatest(handle);
      return { handle, drop: () => handle.close() };
    },
  },
  ...((await shouldRunWith('PostgreSQL', POSTGRES_URL))
    ? [{ dialect: 'PostgreSQL' as const, open: (): Promise<TestDatabase> => createTestDatabase(POSTGRES_URL) }]
    : []),
];

describe.each(databases)('the table types on $dialect', ({ dialect, open }) => {
  let database: { handle: DatabaseHandle; drop(): Promise<void> };
  beforeAll(async () => {
    database = await open();
  });
  afterAll(() => database?.drop());

  it('name exactly the tables the migrations make', async () => {
    const migrated = Object.keys(await migratedSchema(database.handle, dialect)).sort();
    expect(Object.keys(TABLES).sort()).toEqual(migrated);
  });

  it('declare every column as migrated: name, class, nullability and default', async () => {
    expect(typedSchema(TABLES)).toEqual(await migratedSchema(database.handle, dialect));
  });

  it('tell a column migrated without its type, and a typed column never migrated', async () => {
    const trx = database.handle;
    await sql`alter table patients add column planted_in_migration integer`.execute(trx);
    const typed = typedSchema({ ...TABLES, sso_tokens: { ...TABLES.sso_tokens, planted_in_types: text() } });
    const migrated = await migratedSchema(trx, dialect);
    expect(typed).not.toEqual(migrated);
    expect(migrated.patients).toMatchObject({ planted_in_migration: 'integer null' });
    expect(typed.patients).not.toHaveProperty('planted_in_migration');
    expect(typed.sso_tokens).toMatchObject({ planted_in_types: 'text not null' });
    expect(migrated.sso_tokens).not.toHaveProperty('planted_in_types');
  });
});
