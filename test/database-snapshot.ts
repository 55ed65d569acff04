// A comparable picture of every row in every table, to prove a request changed nothing.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/platform/db/database.ts';

/**
 * The audit trail's tables, and the security alerts where refused credentials are counted: a
 * read, an HI lookup or a refusal is recorded there by design, so "changed nothing" leaves them
 * out; test/audit/ checks what they hold (refusal-flood.test.ts the alerts).
 */
const AUDIT_TABLES = new Set(['audit_entries', 'audit_chain', 'security_alerts']);

/**
 * The tables of each database, read once: a test file's schema does not change after its
 * migrations, and introspection (every column of every table, on PostgreSQL a catalogue query)
 * was most of a snapshot's cost, which the matrix tests pay twice per case.
 */
const tablesOf = new WeakMap<DatabaseHandle, Promise<string[]>>();

function tableNamesOf(db: DatabaseHandle): Promise<string[]> {
  let names = tablesOf.get(db);
  if (!names) {
    // Kysely's bookkeeping tables left out; on PostgreSQL only this connection's schema is read.
    names = db.introspection.getTables().then((tables) => tables.map((table) => table.name).filter((name) => !AUDIT_TABLES.has(name)));
    tablesOf.set(db, names);
  }
  return names;
}

export async function snapshotDatabase(database: DatabaseHandle): Promise<Record<string, unknown[]>> {
  const db = database;
  const names = [...(await tableNamesOf(db))];
  const snapshot: Record<string, unknown[]> = {};
  for (const name of names.sort((a, b) => a.localeCompare(b))) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    snapshot[name] = rows.rows.map((row) => JSON.stringify(row)).sort();
  }
  return snapshot;
}
