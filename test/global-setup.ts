// Runs once around the whole suite. On PostgreSQL each test file works in its own schema; the
// schemas are dropped here, after every file has finished, because dropping one while another
// file migrates breaks Kysely's introspection (it reads every schema).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    testRunId: string;
  }
}

export default function setup(project: TestProject) {
  const runId = randomBytes(4).toString('hex');
  project.provide('testRunId', runId);
  return async function teardown() {
    const url = process.env.DATABASE_URL;
    if (!url) return;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        `select nspname as name from pg_namespace where nspname like $1`,
        [`%\\_${runId}\\_%`],
      );
      for (const { name } of rows) await client.query(`drop schema if exists "${name}" cascade`);
    } finally {
      await client.end();
    }
  };
}
