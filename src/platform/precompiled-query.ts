// Hot-path queries compiled once. Building and compiling a Kysely query costs more than
// running it on SQLite; a precompiled query only swaps in the parameter values.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

const MARK = '\u0000param:';

/**
 * `build(param)` writes the query once with `param('name')` wherever a value goes; the result
 * runs it with `values.name` in each place.
 */
export function precompileQuery<Params extends Record<string, unknown>, Row>(
  db: Kysely<any>,
  build: (param: (name: keyof Params & string) => any) => Compilable<Row>,
): (values: Params) => Promise<Row[]> {
  const compiled = build((name) => `${MARK}${name}`).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { constant: value },
  );
  return async (values) => {
    const parameters = slots.map((slot) => ('name' in slot ? values[slot.name!] : slot.constant));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters));
    return result.rows;
  };
}
