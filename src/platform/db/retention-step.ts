// What a feature registers for the rows it keeps only for a while (features.ts lists the steps,
// as it lists the sinks): each owner counts and deletes (or blanks) its own rows, in batches;
// the retention feature runs the list in order, pausing between batches, and reports per step.
// A table no step prunes is declared kept for ever, with the reason (KeptForEver): the
// architecture test (test/architecture/retention-decisions.test.ts) fails on a table of the
// schema that has neither.
import type { Kysely } from 'kysely';
import type { Database } from './database-schema.ts';

/** Rows removed (or, for a dry run, that would be) per kind of row. */
export type RetentionRows = Record<string, number>;

export interface RetentionStep {
  /** What the report calls it, e.g. `webhook_history`. */
  name: string;
  /** The kinds of row its counts name (the report's keys), e.g. webhook_events and webhook_deliveries. */
  kinds: readonly string[];
  /** The tables it deletes from or blanks columns of. */
  tables: ReadonlyArray<keyof Database>;
  /** The setting that decides how long (for the report and the docs), if any. */
  setting?: string;
  /** What a run at `now` prunes up to, as ISO times by name. */
  cutoffs(now: Date): Record<string, string>;
  /** What a run at `now` would remove (a dry run). */
  count(db: Kysely<Database>, now: Date): Promise<RetentionRows>;
  /** One batch of at most `limit` rows, in the transaction given; `more`: rows may remain. */
  batch(trx: Kysely<Database>, now: Date, limit: number): Promise<{ rows: RetentionRows; more: boolean }>;
}

/** A table no step prunes, and why: the visible decision a new table needs when it has no step. */
export interface KeptForEver {
  table: keyof Database;
  because: string;
}

/** A step that prunes one kind of row, `limit` at a time (more remain while a batch is full). */
export function singleKindStep(step: {
  name: string;
  table: keyof Database;
  setting?: string;
  cutoffs(now: Date): Record<string, string>;
  count(db: Kysely<Database>, now: Date): Promise<number>;
  batch(trx: Kysely<Database>, now: Date, limit: number): Promise<number>;
}): RetentionStep {
  return {
    name: step.name,
    kinds: [step.name],
    tables: [step.table],
    ...(step.setting ? { setting: step.setting } : {}),
    cutoffs: step.cutoffs,
    count: async (db, now) => ({ [step.name]: await step.count(db, now) }),
    batch: async (trx, now, limit) => {
      const n = await step.batch(trx, now, limit);
      return { rows: { [step.name]: n }, more: n === limit };
    },
  };
}

/** The ISO time `seconds` before `now`. */
export function secondsBefore(now: Date, seconds: number): string {
  return new Date(now.getTime() - seconds * 1000).toISOString();
}

export const DAY_SECONDS = 86_400;

/** The number a count query answers (a string on PostgreSQL, a number on SQLite). */
export async function countOf(query: { executeTakeFirstOrThrow(): Promise<{ n: string | number | bigint }> }): Promise<number> {
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Rows a delete or update statement changed. */
export function changedRows(result: { numDeletedRows: bigint } | { numUpdatedRows: bigint }): number {
  return Number('numDeletedRows' in result ? result.numDeletedRows : result.numUpdatedRows);
}
