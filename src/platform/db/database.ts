// Opens the one database the service uses: embedded SQLite by default, PostgreSQL when a
// URL is configured. Both speak the same schema (see migrations/).
import { createRequire } from 'node:module';
import path from 'node:path';
import type SqliteDatabaseModule from 'better-sqlite3';
import { Kysely, PostgresAdapter, type Dialect as KyselyDialect } from 'kysely';
import type { PoolCounts } from '../metrics/metrics.ts';
import { createPrivateFile, ensurePrivateDirectory, restrictToOwner } from '../private-files.ts';
import type { Database } from './database-schema.ts';
import { loadPg } from './pg-module.ts';
import { CurrentSchemaPostgresDialect } from './postgres-schema-introspector.ts';
import type { SqliteFastPath } from './precompiled-query.ts';
import { SqliteGroupCommitDialect } from './sqlite/sqlite-group-commit-dialect.ts';
import type { GroupCommitOptions } from './sqlite/sqlite-group-commit.ts';
import { walSyncOf } from './sqlite/sqlite-wal-sync.ts';

// better-sqlite3 12 wraps its objects with node::ObjectWrap, and Node 24 aborts when such a
// statement is collected during teardown; 13 (Node-API) fixes that but needs Node 22 or later
// and crashes on 20. So 12 serves Node 20 and 13 (installed under an alias) everything newer.
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
export const SqliteDatabase: typeof SqliteDatabaseModule = createRequire(import.meta.url)(
  NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3',
);

export type Dialect = 'sqlite' | 'postgres';

/**
 * The service's database: a Kysely over the schema of database-schema.ts, which store
 * functions take first (it or an open transaction of it). On SQLite it also carries the
 * group-commit driver's fast path, which precompiled queries use outside transactions.
 */
export class DatabaseHandle extends Kysely<Database> {
  /** PostgreSQL: its pool's clients now (for metrics); undefined on SQLite, which has no pool. */
  poolCounts: (() => PoolCounts) | undefined;

  constructor(
    dialect: KyselyDialect,
    readonly kind: Dialect,
    /** A short description for logs, never containing a password. */
    readonly describe: string,
    readonly sqliteFastPath?: SqliteFastPath,
  ) {
    super({ dialect });
  }

  close(): Promise<void> {
    return this.destroy();
  }
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  databaseSchema?: string | undefined;
  /** SQLite file; ':memory:' for a private in-memory database. */
  sqliteFile?: string;
  poolSize?: number;
  /** Tuning and a statement hook for SQLite's group commit (see sqlite-group-commit.ts). */
  sqliteGroupCommit?: GroupCommitOptions;
}

function openSqlite(file: string, groupCommit: GroupCommitOptions | undefined): DatabaseHandle {
  if (file !== ':memory:') {
    ensurePrivateDirectory(path.dirname(file));
    // SQLite gives the -wal and -shm files it creates the database file's mode: 0600 from here.
    createPrivateFile(file);
    for (const companion of [`${file}-wal`, `${file}-shm`]) restrictToOwner(companion);
  }
  const sqlite = new SqliteDatabase(file);
  const wal = sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  // NORMAL: COMMIT does not wait for the disk; the group-commit driver makes each group durable
  // by an fsync of the log off the event loop before anything of it is released (decision 28).
  // SQLite still syncs the log before each checkpoint and the database file after it. Without
  // a log (':memory:', or a file system that refuses WAL) COMMIT keeps its own fsync (FULL).
  sqlite.pragma(`synchronous = ${wal ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const reader = file === ':memory:' ? undefined : openSqliteReader(file);
  const walSync = wal ? walSyncOf(file) : undefined;
  const dialect = new SqliteGroupCommitDialect({ ...groupCommit, database: sqlite, reader, walSync });
  const { driver } = dialect;
  return new DatabaseHandle(dialect, 'sqlite', `sqlite:${file}`, {
    readNow: (sql, parameters) => driver.readNow(sql, parameters),
    writeNow: (query) => driver.writeNow(query),
    changeStamp: (tables) => driver.changeStamp(tables),
  });
}

/** Reads outside transactions use their own connection, which sees only committed data (WAL). */
function openSqliteReader(file: string): SqliteDatabaseModule.Database {
  const reader = new SqliteDatabase(file);
  reader.pragma('query_only = ON');
  reader.pragma('busy_timeout = 5000');
  return reader;
}

function describePostgres(url: string, schema: string | undefined): string {
  const parsed = new URL(url);
  return `postgres://${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}${schema ? `#${schema}` : ''}`;
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number): Promise<DatabaseHandle> {
  const pg = await loadPg();
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  // An idle connection the server ends (a restart, a failover) is dropped by the pool, which then
  // emits 'error': unheard, that would end the process. The next query opens a new connection,
  // and until one succeeds queries fail and /readyz names the database.
  pool.on('error', () => {});
  // A connection ended while checked out (between the queries of a transaction, say) emits
  // 'error' on its client, which the pool does not hear: the query in flight or the next one
  // fails with it, so the event itself is only noise that must not end the process.
  pool.on('connect', (client) => client.on('error', () => {}));
  const handle = new DatabaseHandle(new CurrentSchemaPostgresDialect({ pool }), 'postgres', describePostgres(url, schema));
  handle.poolCounts = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return handle;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, options.databaseSchema, options.poolSize ?? 10);
  }
  return openSqlite(options.sqliteFile ?? ':memory:', options.sqliteGroupCommit);
}

export function sqliteFileIn(dataDir: string): string {
  return path.join(dataDir, 'erx.sqlite');
}

/** Whether a write failed on a unique index or primary key, as SQLite and PostgreSQL report it. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Whether the database behind `db` (the handle or one of its transactions) takes row locks
 * (`FOR SHARE`, `FOR UPDATE`): PostgreSQL does; SQLite has none and needs none, since it runs
 * one write transaction at a time.
 */
export function holdsRowLocks(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
