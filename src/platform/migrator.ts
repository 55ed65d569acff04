// Applies the numbered, forward-only migrations in migrations/ (the same set on both
// dialects). Listed explicitly so a bundled or type-stripped build needs no directory scan.
import { Migrator, type Kysely, type Migration } from 'kysely';
import * as foundation from '../../migrations/0001-foundation.ts';
import * as customDrugs from '../../migrations/0003-custom-drugs.ts';

const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0003-custom-drugs': customDrugs,
};

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationReport> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
