// Hot-path queries compiled once. Building and compiling a Kysely query costs more than
// running it on SQLite; a precompiled query only swaps in the parameter values. It is written
// once, at module level, and run with the database or the open transaction it is given, so
// the same query serves inside and outside transactions.
//
// On the embedded SQLite database itself (not its transactions) two more shortcuts apply,
// through the handle's `sqliteFastPath`:
// - a precompiled read runs at once on the reader connection, which sees exactly what a plain
//   read through Kysely would, without Kysely's connection machinery; a precompiled write
//   joins the open group at once when no transaction holds the writer, and settles after the
//   group's COMMIT, as a write through Kysely would;
// - a cached query keeps its results until the database says the tables it reads may have
//   changed (the group-commit driver's change stamp), so repeating it costs a map lookup.
// Elsewhere (PostgreSQL, transactions) both are plain precompiled queries.
import type { CompiledQuery, Compilable, DialectAdapter, Kysely, QueryResult } from 'kysely';
import { whenReady, type Awaitable } from '../awaitable.ts';
import type { Database } from './database-schema.ts';

const MARK = '\u0000param:';

/** What SQLite's group-commit driver offers a database handle outside transactions. */
export interface SqliteFastPath {
  /** Runs a read-only query synchronously, or answers undefined when it cannot (not a pure read). */
  readNow(sql: string, parameters: readonly unknown[]): QueryResult<unknown> | undefined;
  /** Runs a write now as its own unit, settling after its COMMIT; undefined when it cannot (the writer is taken). */
  writeNow(query: CompiledQuery): Promise<QueryResult<unknown>> | undefined;
  /** Differs whenever one of `tables` may have changed; undefined when that cannot be told now. */
  changeStamp(tables: readonly string[]): string | undefined;
}

/** The database handle carries its fast path; a transaction (or any other Kysely) has none. */
function fastPathOf(db: Kysely<any>): SqliteFastPath | undefined {
  return (db as { sqliteFastPath?: SqliteFastPath }).sqliteFastPath;
}

type Param<Params> = (name: keyof Params & string) => any;
type Slot = { name: string } | { constant: unknown };

interface Compiled {
  query: CompiledQuery;
  slots: Slot[];
  names: string[];
}

/**
 * The query compiled once per SQL dialect: a database and its transactions share one dialect
 * adapter, so the adapter tells which compiled form fits the executor.
 */
function compilerOf<DB, Params, Row>(build: (db: Kysely<DB>, param: Param<Params>) => Compilable<Row>) {
  let lastAdapter: DialectAdapter | undefined;
  let last: Compiled | undefined;
  const byAdapter = new WeakMap<DialectAdapter, Compiled>();
  return (db: Kysely<DB>): Compiled => {
    const adapter = db.getExecutor().adapter;
    if (adapter === lastAdapter) return last!;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      const query = build(db, (name) => `${MARK}${name}`).compile();
      const slots: Slot[] = query.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { constant: value },
      );
      compiled = { query, slots, names: slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])) };
      byAdapter.set(adapter, compiled);
    }
    lastAdapter = adapter;
    last = compiled;
    return compiled;
  };
}

function runCompiled<Row>(db: Kysely<any>, compiled: Compiled, values: Record<string, unknown>): Awaitable<Row[]> {
  const parameters = compiled.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.constant));
  const fast = fastPathOf(db);
  const immediate = fast?.readNow(compiled.query.sql, parameters);
  if (immediate) return immediate.rows as Row[];
  // The compiled query's own tree goes along: the group-commit driver reads off it which table a write changes.
  const { query, queryId, sql } = compiled.query;
  const ready: CompiledQuery<Row> = { query, queryId, sql, parameters };
  const written = fast?.writeNow(ready);
  return (written ?? db.executeQuery<Row>(ready)).then((result) => result.rows as Row[]);
}

export type PrecompiledQuery<Params, Row, DB = Database> = (db: Kysely<DB>, values: Params) => Awaitable<Row[]>;

/**
 * `build(db, param)` writes the query once with `param('name')` wherever a value goes; the
 * result runs it on a database or transaction with `values.name` in each place.
 */
export function precompileQuery<Params extends Record<string, unknown>, Row, DB = Database>(
  build: (db: Kysely<DB>, param: Param<Params>) => Compilable<Row>,
): PrecompiledQuery<Params, Row, DB> {
  const compile = compilerOf(build);
  return (db, values) => runCompiled<Row>(db, compile(db), values);
}

/** Most results a cached query keeps per database; the oldest goes first. */
const CACHE_LIMIT = 10_000;

type CachedRows<Row> = readonly Readonly<Row>[];

/**
 * A precompiled read whose results are kept, per parameter values, until a write to one of
 * the tables named in `invalidatedBy` (every table it reads) may have changed them. Only on
 * the SQLite database handle; elsewhere it reads each time. The rows are frozen: they are shared.
 */
export function precompileCachedQuery<Params extends Record<string, unknown>, Row, DB = Database>(
  options: { invalidatedBy: readonly (keyof DB & string)[]; limit?: number },
  build: (db: Kysely<DB>, param: Param<Params>) => Compilable<Row>,
): (db: Kysely<DB>, values: Params) => Awaitable<CachedRows<Row>> {
  const compile = compilerOf(build);
  const limit = options.limit ?? CACHE_LIMIT;
  const caches = new WeakMap<SqliteFastPath, Map<string, { stamp: string; rows: CachedRows<Row> }>>();
  return (db, values) => {
    const compiled = compile(db);
    const fast = fastPathOf(db);
    const stamp = fast?.changeStamp(options.invalidatedBy);
    if (stamp === undefined) return runCompiled<Row>(db, compiled, values);
    let cache = caches.get(fast!);
    if (!cache) caches.set(fast!, (cache = new Map()));
    const key = JSON.stringify(compiled.names.map((name) => values[name]));
    const hit = cache.get(key);
    if (hit?.stamp === stamp) return hit.rows;
    return whenReady(runCompiled<Row>(db, compiled, values), (fresh) => {
      const rows = Object.freeze(fresh.map((row) => Object.freeze(row)));
      if (!hit && cache.size >= limit) cache.delete(cache.keys().next().value!);
      cache.set(key, { stamp, rows });
      return rows;
    });
  };
}
