// A comparable picture of every row in every table, to prove a request changed nothing.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/platform/database.ts';
import { currentSchemaOf } from '../src/platform/migrator.ts';

export async function snapshotDatabase(database: DatabaseHandle): Promise<Record<string, unknown[]>> {
  const db = database.db;
  const schema = await currentSchemaOf(database);
  // Only this database's tables: Kysely's introspection scans every schema and fails when
  // another test file drops its schema meanwhile (PostgreSQL).
  const listed =
    schema === undefined
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select tablename as name from pg_catalog.pg_tables where schemaname = ${schema}`;
  const names = (await listed.execute(db)).rows.map((row) => row.name).filter((name) => !name.startsWith('kysely_'));
  const snapshot: Record<string, unknown[]> = {};
  for (const name of names.sort((a, b) => a.localeCompare(b))) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    snapshot[name] = rows.rows.map((row) => JSON.stringify(row)).sort();
  }
  return snapshot;
}
