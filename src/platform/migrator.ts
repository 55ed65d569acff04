// Applies the numbered, forward-only migrations in migrations/ (the same set on both
// dialects). Listed explicitly so a bundled or type-stripped build needs no directory scan.
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { DatabaseHandle } from './database.ts';
import * as foundation from '../../migrations/0001-foundation.ts';
import * as patients from '../../migrations/0002-patients.ts';
import * as customDrugs from '../../migrations/0003-custom-drugs.ts';
import * as usersProviders from '../../migrations/0004-users-providers.ts';

const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-patients': patients,
  '0003-custom-drugs': customDrugs,
  '0004-users-providers': usersProviders,
};

export interface MigrationReport {
  applied: string[];
}

/**
 * The PostgreSQL schema this connection works in. Kysely looks for its bookkeeping tables in
 * every schema unless told which, so another schema's tables would fool it.
 */
export async function currentSchemaOf(database: DatabaseHandle): Promise<string | undefined> {
  if (database.dialect !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  return rows[0]?.schema;
}

export async function migrateToLatest(database: DatabaseHandle): Promise<MigrationReport> {
  const db: Kysely<any> = database.db;
  const schema = await currentSchemaOf(database);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
