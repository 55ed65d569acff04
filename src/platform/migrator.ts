// Applies the numbered, forward-only migrations in migrations/ (the same set on both
// dialects). Listed explicitly so a bundled or type-stripped build needs no directory scan.
import { Migrator, PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';
import * as foundation from '../../migrations/0001-foundation.ts';
import * as patients from '../../migrations/0002-patients.ts';
import * as customDrugs from '../../migrations/0003-custom-drugs.ts';

const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-patients': patients,
  '0003-custom-drugs': customDrugs,
};

export interface MigrationReport {
  applied: string[];
}

// Kysely looks for its bookkeeping tables in every schema it can see unless told which one;
// on a PostgreSQL shared by several schemas (one per test file, or per deployment) it would
// find another schema's tables and skip creating its own. Pin them to the current schema.
async function migrationTableSchemaOf(db: Kysely<any>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationReport> {
  const migrationTableSchema = await migrationTableSchemaOf(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
