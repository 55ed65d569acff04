// Runs Kysely's queries on a better-sqlite3 connection for the group-commit driver
// (sqlite-group-commit.ts): one statement cache per connection, and which reads may go to the
// reader connection instead of the writer.
import type BetterSqlite3 from 'better-sqlite3';
import type { QueryResult } from 'kysely';

/** Most queries repeat with new parameters; preparing each SQL text once saves the parse. */
const STATEMENT_CACHE_LIMIT = 1000;

type RowBuilder = ((values: unknown[]) => Record<string, unknown>) & { columnCount: number };

/**
 * Builds a query's row objects in JavaScript from better-sqlite3's raw arrays: one object
 * literal per result shape, compiled once. better-sqlite3 itself adds the columns to each row
 * one by one, about half a microsecond per column on Node 20 (10 µs for a custom drug), where
 * the literal costs a few nanoseconds. Same result: own properties in column order, and the
 * later of two equal column names wins. Undefined (keep better-sqlite3's objects) when a
 * column is named __proto__, which a literal would take for the prototype.
 */
function compileRowBuilder(columns: readonly string[]): RowBuilder | undefined {
  if (columns.includes('__proto__')) return undefined;
  const fields = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return Object.assign(new Function('values', `return { ${fields.join(', ')} };`), { columnCount: columns.length }) as RowBuilder;
}

/** Only plain queries go to the reader; pragmas and the like must reach the writer's session. */
const READ_QUERY = /^\s*(select|with)\b/i;

export class SqliteStatements {
  readonly #db: BetterSqlite3.Database;
  readonly #cache = new Map<string, BetterSqlite3.Statement>();
  /** The row builder of each cached statement that returns rows in raw mode. */
  readonly #rowBuilders = new WeakMap<BetterSqlite3.Statement, RowBuilder>();
  readonly #onStatement: ((sql: string) => void) | undefined;

  constructor(db: BetterSqlite3.Database, onStatement: ((sql: string) => void) | undefined) {
    this.#db = db;
    this.#onStatement = onStatement;
  }

  /** True while the connection has a transaction open (SQLite may end one on its own after an error). */
  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      const buildRow = statement.reader ? compileRowBuilder(statement.columns().map((column) => column.name)) : undefined;
      if (buildRow) this.#rowBuilders.set(statement.raw(true), buildRow);
      if (this.#cache.size < STATEMENT_CACHE_LIMIT) this.#cache.set(sql, statement);
    }
    return statement;
  }

  run<R>(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): QueryResult<R> {
    this.#onStatement?.(statement.source);
    if (statement.reader) return { rows: this.#rowsOf(statement, statement.all(parameters as unknown[])) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters as unknown[]);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  *iterate<R>(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): IterableIterator<QueryResult<R>> {
    this.#onStatement?.(statement.source);
    for (const row of statement.iterate(parameters as unknown[])) yield { rows: this.#rowsOf(statement, [row]) as R[] };
  }

  #rowsOf(statement: BetterSqlite3.Statement, rows: unknown[]): unknown[] {
    let buildRow = this.#rowBuilders.get(statement);
    if (!buildRow || rows.length === 0) return rows;
    // SQLite re-prepares a statement whose tables changed shape (a migration from another
    // process); its result columns may then differ from the ones the builder was made for.
    if ((rows[0] as unknown[]).length !== buildRow.columnCount) buildRow = this.#rebuildRows(statement);
    for (let index = 0; index < rows.length; index++) rows[index] = buildRow(rows[index] as unknown[]);
    return rows;
  }

  #rebuildRows(statement: BetterSqlite3.Statement): RowBuilder {
    const buildRow = compileRowBuilder(statement.columns().map((column) => column.name));
    if (!buildRow) throw new Error(`SQLite: a column of this query is now named __proto__: ${statement.source}`);
    this.#rowBuilders.set(statement, buildRow);
    return buildRow;
  }

  /**
   * Reads SQLite's data_version, which changes when another connection commits. Undefined while
   * a query of this connection is still being stepped through (the connection is busy then).
   */
  dataVersionReader(): () => number | undefined {
    const statement = this.#db.prepare('pragma data_version').pluck();
    return () => {
      try {
        return statement.get() as number;
      } catch {
        return undefined;
      }
    };
  }

  exec(sql: string): void {
    this.run(this.prepare(sql), []);
  }

  close(): void {
    this.#db.close();
  }
}

/** The reader connection: in WAL mode each of its reads sees the last COMMIT, never an open group. */
export class SqliteReader extends SqliteStatements {
  readonly #readOnly = new Map<string, boolean>();

  /** The reader's statement for `sql` if it is a read-only query, else undefined (run it on the writer). */
  statementFor(sql: string): BetterSqlite3.Statement | undefined {
    let readOnly = this.#readOnly.get(sql);
    if (readOnly === undefined) {
      if (!READ_QUERY.test(sql)) readOnly = false;
      else {
        try {
          readOnly = this.prepare(sql).readonly;
        } catch {
          return undefined; // e.g. a temporary table only the writer has: let the writer answer
        }
      }
      if (this.#readOnly.size < STATEMENT_CACHE_LIMIT) this.#readOnly.set(sql, readOnly);
    }
    return readOnly ? this.prepare(sql) : undefined;
  }
}
