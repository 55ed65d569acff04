// Hot statements on PostgreSQL as named prepared statements: the first run on a connection
// prepares it (parse, analyse, plan), later runs on that connection only bind and execute. The
// webhook claim and outcome statements (CTEs over four tables) and the precompiled queries of
// the request paths run with the same text thousands of times a second.
//
// Kysely sends every query as `client.query(text, values)`; the pool's clients are of the class
// below, which looks the text up among the named ones. Only texts registered here are named,
// each by a hash of its text, so a name never stands for two statements; the registry holds
// fixed texts from the code (module-level precompiled queries and the statements that name
// themselves), never text built from input, so it stays small.
import { createHash } from 'node:crypto';
import type { CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';

const names = new Map<string, string>();

/** Runs `text` as a named prepared statement from now on (on every connection of every pool). */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `erx_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
}

/** The name `text` runs under, if it was registered. */
export function statementNameOf(text: string): string | undefined {
  return names.get(text);
}

/** Executes a raw query of fixed text as a named statement (a no-op registration on SQLite's texts, never used there). */
export function executeNamed<Row>(db: Kysely<any>, query: RawBuilder<Row>): Promise<QueryResult<Row>> {
  const compiled: CompiledQuery<Row> = query.compile(db);
  nameStatement(compiled.sql);
  return db.executeQuery(compiled);
}

let clientClass: typeof pg.Client | undefined;

/**
 * A pg client class that sends registered texts as named statements, made from the pg module
 * once it is loaded (pg-module.ts: a process on SQLite never loads it).
 */
export function namedStatementClientOf(pgModule: typeof pg): typeof pg.Client {
  return (clientClass ??= class NamedStatementClient extends pgModule.Client {
    // pg's query has a dozen overloads; this passes every call through unchanged but the one
    // Kysely makes (text and a values array) for a registered text.
    override query(...args: any[]): any {
      const [text, values] = args;
      if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
        const name = names.get(text);
        if (name) return super.query({ name, text, values });
      }
      return (super.query as (...a: any[]) => any)(...args);
    }
  });
}
