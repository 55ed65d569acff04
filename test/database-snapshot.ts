// A comparable picture of every row in every table, to prove a request changed nothing.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/platform/database.ts';
import { currentSchemaOf } from '../src/platform/migrator.ts';

export async function snapshotDatabase(database: DatabaseHandle): Promise<Record<string, unknown[]>> {
  const db = database.db;
  const schema = await currentSchemaOf(database);
  const tables = (await db.introspection.getTables()).filter(
    (t) => !t.name.startsWith('kysely_') && (schema === undefined || t.schema === schema),
  );
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    snapshot[table.name] = rows.rows.map((row) => JSON.stringify(row)).sort();
  }
  return snapshot;
}
