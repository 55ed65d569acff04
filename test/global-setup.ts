// Runs once around the whole suite. On PostgreSQL each test file works in its own schemas,
// named after this run; a file drops them as it closes, and the teardown here drops any that a
// file left behind (one that failed before closing, or the CLI tests' servers). The CLI tests run
// the compiled `erx`, so dist/ is built first when the code is newer than it.
//
// Every file creates and drops a schema of some 25 tables, which leaves dead rows in the
// system catalogs; where autovacuum is off (as on the CI machines' PostgreSQL) they pile up
// run after run (600,000 dead pg_attribute rows seen), and every catalog read (the migrator's
// introspection, the "changed nothing" snapshots) slows until tests time out. So the suite
// starts by vacuuming the catalogs it churns (a database owner may; others get a warning).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    testRunId: string;
  }
}

/** The catalogs a schema's creation and drop leave dead rows in. */
const CHURNED_CATALOGS = ['pg_attribute', 'pg_class', 'pg_depend', 'pg_type', 'pg_constraint', 'pg_index', 'pg_attrdef', 'pg_namespace', 'pg_sequence', 'pg_description'];

export default async function setup(project: TestProject) {
  execFileSync(process.execPath, ['scripts/build-dist.js', '--if-stale'], { stdio: 'inherit' });
  const runId = randomBytes(4).toString('hex');
  project.provide('testRunId', runId);
  const url = process.env.DATABASE_URL;
  if (url) await withClient(url, (client) => client.query(`vacuum (analyze) ${CHURNED_CATALOGS.map((name) => `pg_catalog.${name}`).join(', ')}`));
  return async function teardown() {
    if (!url) return;
    const { rows } = await withClient(url, (client) =>
      client.query<{ name: string }>(`select nspname as name from pg_namespace where nspname like $1`, [`%\\_${runId}\\_%`]),
    );
    await dropSchemas(url, rows.map((row) => row.name));
  };
}

export function dropSchemas(url: string, names: string[]): Promise<void> {
  return withClient(url, async (client) => {
    for (const name of names) await client.query(`drop schema if exists "${name}" cascade`);
  });
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
