// How a table is declared: a map of columns, each a value a test can read (its class, whether
// it takes null, whether the database fills it) that also carries its TypeScript type. The row
// types Kysely sees are derived from these maps, so the types and the runtime description are
// one thing, and test/platform/database-schema.test.ts holds the description to the migrations.
import type { Generated } from 'kysely';

/** What a column holds, coarsely: enough to tell a column migrated as one thing and typed as another. */
export type ColumnClass = 'text' | 'integer' | 'real' | 'boolean' | 'blob' | 'timestamp' | 'json';

/**
 * What each class is stored as. One schema reads the same on SQLite and PostgreSQL: times are
 * ISO-8601 text, lists and objects JSON text, flags 0/1 integers.
 */
export const STORED_AS: Readonly<Record<ColumnClass, ColumnClass>> = {
  text: 'text',
  integer: 'integer',
  real: 'real',
  boolean: 'integer',
  blob: 'blob',
  timestamp: 'text',
  json: 'text',
};

export class Column<T> {
  /** Never set: it only carries the column's type (Kysely's field type) to RowOf. */
  declare readonly type: T;

  constructor(
    readonly kind: ColumnClass,
    readonly nullable = false,
    /** The database fills it when an insert leaves it out (a column default). */
    readonly defaulted = false,
  ) {}

  orNull(): Column<T | null> {
    return new Column<T | null>(this.kind, true, this.defaulted);
  }

  /** Filled by its column default: inserts may leave it out. */
  withDefault(): Column<Generated<T>> {
    return new Column<Generated<T>>(this.kind, this.nullable, true);
  }
}

export const text = <T extends string = string>() => new Column<T>('text');
export const integer = () => new Column<number>('integer');
/** A 0/1 flag. */
export const flag = () => new Column<number>('boolean');
/** An ISO-8601 instant or date. */
export const time = () => new Column<string>('timestamp');
/** JSON text (a list or an object). */
export const json = () => new Column<string>('json');
/** Text holding one of `values` only. */
export const oneOf = <const V extends readonly string[]>(_values: V) => new Column<V[number]>('text');

export type TableColumns = Readonly<Record<string, Column<unknown>>>;

/** The row type of a table, as Kysely takes it. */
export type RowOf<M extends TableColumns> = { -readonly [K in keyof M]: M[K]['type'] };
