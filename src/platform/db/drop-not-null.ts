// Lets columns hold null, for a migration, on both dialects. PostgreSQL alters the columns.
// SQLite cannot alter a column, so the table is rebuilt the way SQLite documents for schema
// changes it has no ALTER for: a new table from the current definition read back from
// sqlite_master (whatever columns other migrations added, in whatever order they ran) less
// the NOT NULL of these columns, every row copied, the old table dropped, the new one renamed,
// and the indexes made again from their stored definitions. Nothing may reference the table
// (a foreign key to it would block the drop); the migration that calls this says so.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function dropNotNull(db: Kysely<unknown>, table: string, columns: readonly string[]): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const column of columns) await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} drop not null`.execute(db);
    return;
  }
  // One transaction: a rebuild cut short leaves the table as it was.
  await db.transaction().execute((trx) => rebuildSqliteTable(trx, table, (definition) => columns.reduce(withoutNotNull, definition)));
}

/** `definition` with the NOT NULL of `column`'s own definition removed (its name quoted as Kysely writes it). */
function withoutNotNull(definition: string, column: string): string {
  const pattern = new RegExp(`("${column}"\\s+\\w+)\\s+not null`, 'i');
  if (!pattern.test(definition)) throw new Error(`drop-not-null: no NOT NULL column "${column}" in ${definition.slice(0, 80)}...`);
  return definition.replace(pattern, '$1');
}

async function rebuildSqliteTable(db: Kysely<unknown>, table: string, change: (definition: string) => string): Promise<void> {
  const rebuilt = `${table}_rebuilt`;
  const { rows: tables } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const definition = tables[0]?.sql;
  if (!definition) throw new Error(`drop-not-null: no table ${table}`);
  const { rows: indexes } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
  const renamed = change(definition).replace(/^create table\s+("?)[^"\s(]+\1/i, `CREATE TABLE "${rebuilt}"`);
  await sql.raw(renamed).execute(db);
  await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
  await sql`drop table ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(table)}`.execute(db);
  for (const index of indexes) await sql.raw(index.sql).execute(db);
}
