// What Kysely's migrator sees of a PostgreSQL database: the tables of this connection's own
// schema, read from the catalogs in one snapshot.
//
// Kysely's stock introspector reads every table of every schema and, for each column, looks
// its table up again by name (pg_get_serial_sequence). That lookup sees the newest catalog, not
// the query's snapshot, so a table renamed or dropped in any other schema while the query ran
// failed it ("relation ... does not exist"), and with it the migrations at start-up: CI saw
// one test file's migration fail while another file renamed a table of its own. Instances
// sharing a database with other schemas would hit the same. Here every join is by OID and the
// read is confined to current_schema(), so nothing outside it is touched.
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  table: string;
  table_kind: string;
  schema: string;
  column: string;
  type: string;
  type_schema: string;
  not_null: boolean;
  has_default: boolean;
  owns_sequence: boolean;
  comment: string | null;
}

export class CurrentSchemaPostgresIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<any>;

  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return new PostgresIntrospector(this.#db).getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables ? [] : [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
    // A column is auto-incrementing when it owns a sequence: the dependency that serial
    // ('a') and identity ('i') columns record, which is what pg_get_serial_sequence finds.
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, c.relkind as table_kind, ns.nspname as schema,
             a.attname as column, typ.typname as type, typns.nspname as type_schema,
             a.attnotnull as not_null, a.atthasdef as has_default,
             exists (
               select 1 from pg_catalog.pg_depend d
               join pg_catalog.pg_class s on s.oid = d.objid and s.relkind = 'S'
               where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass
                 and d.refobjid = c.oid and d.refobjsubid = a.attnum and d.deptype in ('a', 'i')
             ) as owns_sequence,
             col_description(c.oid, a.attnum) as comment
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace typns on typns.oid = typ.typnamespace
      where ns.nspname = current_schema()
        and c.relkind in ('r', 'v', 'p')
        and a.attnum > 0 and not a.attisdropped
        and c.relname <> all(${internal}::text[])
      order by c.relname, a.attnum`.execute(this.#db);
    return tablesOf(rows);
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** Rows come ordered by table, then column position. */
function tablesOf(rows: ColumnRow[]): TableMetadata[] {
  const tables: TableMetadata[] = [];
  let current: TableMetadata | undefined;
  for (const row of rows) {
    if (current?.name !== row.table) {
      current = { name: row.table, schema: row.schema, isView: row.table_kind === 'v', columns: [] };
      tables.push(current);
    }
    current.columns.push({
      name: row.column,
      dataType: row.type,
      dataTypeSchema: row.type_schema,
      isNullable: !row.not_null,
      hasDefaultValue: row.has_default,
      isAutoIncrementing: row.owns_sequence,
      comment: row.comment ?? undefined,
    });
  }
  return tables;
}

/** PostgreSQL as Kysely's own dialect speaks it, introspecting only the current schema. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaPostgresIntrospector(db);
  }
}
