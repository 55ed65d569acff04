// The environment the API under test runs in: a fresh temporary data directory (SQLite file
// and generated keys), or, when the caller set DATABASE_URL, a fresh PostgreSQL schema.
// Both are removed when the bench ends.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { deferCleanup } from './bench-cleanup.ts';
import { findFreePort } from './bench-processes.ts';

export interface BenchDatabase {
  dialect: 'sqlite' | 'postgres';
  /** The PostgreSQL schema the run used (dropped afterwards). */
  schema?: string;
}

export interface ApiEnvironment {
  env: NodeJS.ProcessEnv;
  database: BenchDatabase;
  remove(): Promise<void>;
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/**
 * `metrics`: the Prometheus listener on a free port of its own, as production runs it (issue 31:
 * the API rows are measured with metrics and the audit trail on, their cost counts). Off by
 * default, whatever the shell says, for the benches of one component.
 */
export async function prepareApiEnvironment(port: number, options: { metrics?: boolean } = {}): Promise<ApiEnvironment> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'erx-bench-'));
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const schema = databaseUrl ? `bench_${randomBytes(6).toString('hex')}` : undefined;
  const removeAll = async () => {
    if (databaseUrl && schema) await dropSchema(databaseUrl, schema);
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  const forget = deferCleanup('the bench data directory and database', removeAll);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    ERX_MODE: 'sandbox',
    ERX_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    ERX_DATABASE_SCHEMA: schema ?? '',
    // Measure the API itself: no rate limiting, no log output, and paths at the root.
    ERX_RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'silent',
    ERX_BASE_PATH: '',
    // The HI Service simulator with only its built-in demo identities and no added latency,
    // whatever the caller's shell has set.
    ERX_HI_FIXTURES: '',
    ERX_HI_LATENCY_MS: '0',
    // The bulk-create row adds 100 drugs a request for as long as it runs: the default cap of
    // 10,000 an organization would stop it within seconds. The highest the setting allows.
    ERX_CUSTOM_DRUGS_MAX: '10000000',
    ERX_METRICS_PORT: options.metrics ? String(await findFreePort()) : '',
  };
  return {
    env,
    database: databaseUrl ? { dialect: 'postgres', schema } : { dialect: 'sqlite' },
    remove: async () => {
      forget();
      await removeAll();
    },
  };
}
