// The Kysely dialect of the group-commit driver: SQLite's own compiler, adapter and
// introspector around SqliteGroupCommitDriver (sqlite-group-commit.ts).
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
} from 'kysely';
import { SqliteGroupCommitDriver, type SqliteGroupCommitConfig } from './sqlite-group-commit.ts';

export class SqliteGroupCommitDialect implements Dialect {
  /** One driver per dialect, so the database module can also reach its reader directly. */
  readonly driver: SqliteGroupCommitDriver;

  constructor(config: SqliteGroupCommitConfig) {
    this.driver = new SqliteGroupCommitDriver(config);
  }

  createDriver(): Driver {
    return this.driver;
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
