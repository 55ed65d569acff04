// A comparable picture of every row in every table, to prove a request changed nothing.
import { sql, type Kysely } from 'kysely';

export async function snapshotDatabase(db: Kysely<any>): Promise<Record<string, unknown[]>> {
  const tables = (await db.introspection.getTables()).filter((t) => !t.name.startsWith('kysely_'));
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    snapshot[table.name] = rows.rows.map((row) => JSON.stringify(row)).sort();
  }
  return snapshot;
}
