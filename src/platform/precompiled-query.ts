// Hot-path queries compiled once. Building and compiling a Kysely query costs more than
// running it on SQLite; a precompiled query only swaps in the parameter values.
//
// On embedded SQLite two more shortcuts apply (openDatabase registers them):
// - a precompiled read runs at once on the reader connection, which sees exactly what a plain
//   read through Kysely would, without Kysely's connection machinery; a precompiled write
//   joins the open group at once when no transaction holds the writer, and settles after the
//   group's COMMIT, as a write through Kysely would;
// - a cached query keeps its results until the database says the tables it reads may have
//   changed (the group-commit driver's change stamp), so repeating it costs a map lookup.
// Elsewhere (PostgreSQL, transactions) both are plain precompiled queries.
import type { CompiledQuery, Compilable, Kysely, QueryResult } from 'kysely';
import { whenReady, type Awaitable } from './awaitable.ts';

const MARK = '\u0000param:';

export interface SqliteShortcuts {
  /** Runs a read-only query synchronously, or answers undefined when it cannot (not a pure read). */
  readNow(sql: string, parameters: readonly unknown[]): QueryResult<unknown> | undefined;
  /** Runs a write now as its own unit, settling after its COMMIT; undefined when it cannot (the writer is taken). */
  writeNow(query: CompiledQuery): Promise<QueryResult<unknown>> | undefined;
  /** Differs whenever one of `tables` may have changed; undefined when that cannot be told now. */
  changeStamp(tables: readonly string[]): string | undefined;
}

const shortcutsByDatabase = new WeakMap<Kysely<any>, SqliteShortcuts>();

/**
 * Lets precompiled queries on `db` itself use the shortcuts. Not its transactions: they are
 * other objects, and must read through their own connection.
 */
export function registerSqliteShortcuts(db: Kysely<any>, shortcuts: SqliteShortcuts): void {
  shortcutsByDatabase.set(db, shortcuts);
}

type Slot = { name: string } | { constant: unknown };

interface Precompiled<Params, Row> {
  /** The rows at once when the SQLite reader could run the query right away. */
  run: (values: Params) => Awaitable<Row[]>;
  /** The values of the named parameters, in order: what a cache keys on. */
  namedValues: (values: Params) => unknown[];
}

function compileOnce<Params extends Record<string, unknown>, Row>(
  db: Kysely<any>,
  build: (param: (name: keyof Params & string) => any) => Compilable<Row>,
): Precompiled<Params, Row> {
  const compiled = build((name) => `${MARK}${name}`).compile();
  const slots: Slot[] = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { constant: value },
  );
  const names = slots.flatMap((slot) => ('name' in slot ? [slot.name] : []));
  const shortcuts = shortcutsByDatabase.get(db);
  return {
    run(values) {
      const parameters = slots.map((slot) => ('name' in slot ? values[slot.name] : slot.constant));
      const immediate = shortcuts?.readNow(compiled.sql, parameters);
      if (immediate) return immediate.rows as Row[];
      // The compiled query's own tree goes along: the group-commit driver reads off it which table a write changes.
      const query: CompiledQuery<Row> = { query: compiled.query, queryId: compiled.queryId, sql: compiled.sql, parameters };
      const written = shortcuts?.writeNow(query);
      return (written ?? db.executeQuery<Row>(query)).then((result) => result.rows as Row[]);
    },
    namedValues: (values) => names.map((name) => values[name]),
  };
}

/**
 * `build(param)` writes the query once with `param('name')` wherever a value goes; the result
 * runs it with `values.name` in each place.
 */
export function precompileQuery<Params extends Record<string, unknown>, Row>(
  db: Kysely<any>,
  build: (param: (name: keyof Params & string) => any) => Compilable<Row>,
): (values: Params) => Awaitable<Row[]> {
  return compileOnce(db, build).run;
}

/** Most results a cached query keeps; the oldest goes first. */
const CACHE_LIMIT = 10_000;

/**
 * A precompiled read whose results are kept, per parameter values, until a write to one of
 * `tables` (the tables it reads) may have changed them. The rows are frozen: they are shared.
 */
export function precompileCachedQuery<Params extends Record<string, unknown>, Row>(
  db: Kysely<any>,
  tables: readonly string[],
  build: (param: (name: keyof Params & string) => any) => Compilable<Row>,
  limit = CACHE_LIMIT,
): (values: Params) => Awaitable<readonly Readonly<Row>[]> {
  const query = compileOnce(db, build);
  const shortcuts = shortcutsByDatabase.get(db);
  if (!shortcuts) return query.run;
  const cache = new Map<string, { stamp: string; rows: readonly Readonly<Row>[] }>();
  return (values) => {
    const stamp = shortcuts.changeStamp(tables);
    if (stamp === undefined) return query.run(values);
    const key = JSON.stringify(query.namedValues(values));
    const hit = cache.get(key);
    if (hit?.stamp === stamp) return hit.rows;
    return whenReady(query.run(values), (fresh) => {
      const rows = Object.freeze(fresh.map((row) => Object.freeze(row)));
      if (!hit && cache.size >= limit) cache.delete(cache.keys().next().value!);
      cache.set(key, { stamp, rows });
      return rows;
    });
  };
}
