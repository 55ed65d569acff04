// One unit of work: a service's change runs in one transaction, and what the change leaves
// beside its own rows (a webhook event, a token message, an audit entry) is recorded through
// the handle the change is given. Each kind of record has one sink, registered once
// (features.ts): the sink writes a transaction's records of its kind in that transaction, just
// before it commits, and hears of exactly those records once it has committed; nothing is
// heard of a transaction that rolled back. So nothing runs after a commit that the unit of
// work does not know, and a new kind of record is one more sink in the list.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './database-schema.ts';

/** A kind of record a change may leave; a sink registered for it writes and follows up its records. */
export interface RecordKind<R> {
  readonly name: string;
  /** Carries the record type only (never set). */
  readonly recordType?: R;
}

export function recordKind<R>(name: string): RecordKind<R> {
  return { name };
}

export interface RecordSink<R> {
  readonly kind: RecordKind<R>;
  /** Inside the transaction, after the change's own work: all of its records of this kind, in the order recorded. */
  write(trx: Kysely<Database>, records: readonly R[]): Promise<void>;
  /** Once that transaction has committed; never for one that rolled back. The change has happened: an error here is logged, not thrown. */
  afterCommit(records: readonly R[]): void;
  /** When that transaction rolled back after `write` ran (a failed commit, a later sink's error). */
  rolledBack?(records: readonly R[]): void;
}

/** What a change is handed: its open transaction, and where it records what it leaves. */
export interface Work {
  readonly trx: Kysely<Database>;
  record<R>(kind: RecordKind<R>, record: R): void;
}

export interface UnitOfWork {
  /** Runs `change` in one transaction with the records it leaves; resolves with its result once committed. */
  run<T>(change: (work: Work) => Promise<T>): Promise<T>;
}

export function createUnitOfWork(db: Kysely<Database>, sinks: ReadonlyArray<RecordSink<any>>, logger: Logger): UnitOfWork {
  const byKind = new Map<RecordKind<unknown>, RecordSink<unknown>>();
  for (const sink of sinks) {
    if (byKind.has(sink.kind)) throw new Error(`two sinks for records of kind ${sink.kind.name}`);
    byKind.set(sink.kind, sink);
  }
  return {
    async run(change) {
      const gathered = new Map<RecordSink<unknown>, unknown[]>();
      let open = true;
      const written: RecordSink<unknown>[] = [];
      let result: Awaited<ReturnType<typeof change>>;
      try {
        result = await db.transaction().execute(async (trx) => {
          const work: Work = {
            trx,
            record(kind, record) {
              const sink = byKind.get(kind);
              if (!sink) throw new Error(`no sink is registered for records of kind ${kind.name}`);
              if (!open) throw new Error(`a record of kind ${kind.name} came after its transaction ended`);
              const records = gathered.get(sink) ?? [];
              records.push(record);
              gathered.set(sink, records);
            },
          };
          try {
            const value = await change(work);
            for (const sink of sinks) {
              const records = gathered.get(sink);
              if (!records) continue;
              written.push(sink);
              await sink.write(trx, records);
            }
            return value;
          } finally {
            open = false;
          }
        });
      } catch (error) {
        for (const sink of written) sink.rolledBack?.(gathered.get(sink)!);
        throw error;
      }
      for (const sink of sinks) {
        const records = gathered.get(sink);
        if (records) followUp(sink, records, logger);
      }
      return result;
    },
  };
}

function followUp(sink: RecordSink<unknown>, records: readonly unknown[], logger: Logger): void {
  try {
    sink.afterCommit(records);
  } catch (error) {
    logger.error({ err: error, kind: sink.kind.name }, 'unit of work: a follow-up after commit failed');
  }
}
