// Opens the one database the service uses: embedded SQLite by default, PostgreSQL when a
// URL is configured. Both speak the same schema (see migrations/).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SqliteDatabaseModule from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
} from 'kysely';
import type { Database } from './database-schema.ts';

// better-sqlite3 12 wraps its objects with node::ObjectWrap, and Node 24 aborts when such a
// statement is collected during teardown; 13 (Node-API) fixes that but needs Node 22 or later
// and crashes on 20. So 12 serves Node 20 and 13 (installed under an alias) everything newer.
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const SqliteDatabase: typeof SqliteDatabaseModule = createRequire(import.meta.url)(
  NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3',
);

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** A short description for logs, never containing a password. */
  describe: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  databaseSchema?: string | undefined;
  /** SQLite file; ':memory:' for a private in-memory database. */
  sqliteFile?: string;
  poolSize?: number;
}

// Write transactions take the write lock up front (BEGIN IMMEDIATE), so two processes on the
// same file queue on busy_timeout instead of failing when a reader tries to upgrade.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** Most queries repeat with new parameters; preparing each SQL text once saves the parse. */
const STATEMENT_CACHE_LIMIT = 1000;

function withStatementCache(sqlite: SqliteDatabaseModule.Database) {
  const statements = new Map<string, SqliteDatabaseModule.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteDatabaseModule.Statement {
      let statement = statements.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (statements.size < STATEMENT_CACHE_LIMIT) statements.set(text, statement);
      }
      return statement;
    },
  };
}

function openSqlite(file: string): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', describe: `sqlite:${file}`, close: () => db.destroy() };
}

function describePostgres(url: string, schema: string | undefined): string {
  const parsed = new URL(url);
  return `postgres://${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}${schema ? `#${schema}` : ''}`;
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number): Promise<DatabaseHandle> {
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', describe: describePostgres(url, schema), close: () => db.destroy() };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, options.databaseSchema, options.poolSize ?? 10);
  }
  return openSqlite(options.sqliteFile ?? ':memory:');
}

export function sqliteFileIn(dataDir: string): string {
  return path.join(dataDir, 'erx.sqlite');
}
