// The bench's own connection to the database the server under test uses, opened the way the
// server opens it (same configuration, same module), for the rows' stored checks. It only reads.
import type { Kysely } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openDatabase, sqliteFileIn } from '../src/platform/db/database.ts';
import type { Database } from '../src/platform/db/database-schema.ts';

export interface BenchDatabaseReader {
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** Opens the server's database from the server's environment (SQLite file or PostgreSQL schema). */
export async function openServerDatabase(env: NodeJS.ProcessEnv): Promise<BenchDatabaseReader> {
  const config = loadConfig(env);
  const handle = await openDatabase({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    sqliteFile: sqliteFileIn(config.dataDir),
    poolSize: 1,
  });
  return { db: handle, close: () => handle.close() };
}
