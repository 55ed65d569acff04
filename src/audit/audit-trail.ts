// The audit trail as a kind of record of the unit of work: a change records its entries and
// the sink appends them to the chain in the change's transaction, so an entry exists exactly
// when its change committed. Reads and HI lookups change nothing: they are noted in the
// request's scope and written before its answer leaves (audit-hooks.ts), in the transaction
// of a change the request commits meanwhile if there is one, or in their own. Outside any
// scope they are written at once. Either way a failure to write fails the request.
import type { Kysely } from 'kysely';
import type { Deps } from '../deps.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { recordKind, type RecordSink } from '../platform/db/unit-of-work.ts';
import { deriveAuditChainKey } from './audit-chain.ts';
import { entryOf, type AuditEvent, type UnchainedEntry } from './audit-entry.ts';
import { currentAuditScope, type AuditScope } from './audit-scope.ts';
import { appendAuditEntries } from './audit-store.ts';

export const auditRecords = recordKind<AuditEvent>('audit trail');

export interface AuditTrail extends RecordSink<AuditEvent> {
  db: Kysely<Database>;
  /** Keys the chain's hashes. */
  chainKey: Buffer;
  clock: Clock;
  /** How many years entries are kept (ERX_AUDIT_RETENTION_YEARS): the prune's horizon. */
  retentionYears: number;
  /** Where erx runs (its public URL): the export's AuditEvent.source.site. */
  site: string;
  /** A read or an HI lookup: durable before the answer leaves (see the header). */
  noteAccess(event: AuditEvent): Promise<void>;
  /** Writes the scope's waiting entries; throws when they cannot be written, so the answer must not leave. */
  flushPending(scope: AuditScope): Promise<void>;
  /** Told how many entries each commit appended (metrics). */
  onAppended: ((count: number) => void) | undefined;
}

export const DEFAULT_AUDIT_RETENTION_YEARS = 7;

export function createAuditTrail(
  deps: Pick<Deps, 'database' | 'clock' | 'secretKey' | 'metrics'> & { config?: Pick<Deps['config'], 'auditRetentionYears' | 'publicUrl'> },
): AuditTrail {
  const { database, clock } = deps;
  const chainKey = deriveAuditChainKey(deps.secretKey);
  // Waiting entries a change's transaction carried: back to their scope if it rolls back.
  const carried = new WeakMap<readonly AuditEvent[], { scope: AuditScope; entries: UnchainedEntry[] }>();
  const trail: AuditTrail = {
    kind: auditRecords,
    db: database,
    chainKey,
    clock,
    retentionYears: deps.config?.auditRetentionYears ?? DEFAULT_AUDIT_RETENTION_YEARS,
    site: deps.config?.publicUrl ?? 'erx',
    onAppended: deps.metrics ? (count) => deps.metrics!.recordAuditEntriesWritten(count) : undefined,
    async write(trx, events) {
      const scope = currentAuditScope();
      const now = clock.now().toISOString();
      const waiting = scope ? scope.pending.splice(0) : [];
      if (scope && waiting.length > 0) carried.set(events, { scope, entries: waiting });
      await appendAuditEntries(trx, chainKey, [...waiting, ...events.map((event) => entryOf(event, scope, now))]);
    },
    afterCommit(events) {
      const waiting = carried.get(events)?.entries.length ?? 0;
      carried.delete(events);
      trail.onAppended?.(waiting + events.length);
    },
    rolledBack(events) {
      const taken = carried.get(events);
      carried.delete(events);
      if (taken) taken.scope.pending.unshift(...taken.entries);
    },
    async noteAccess(event) {
      const scope = currentAuditScope();
      const entry = entryOf(event, scope, clock.now().toISOString());
      if (scope?.deferred) scope.pending.push(entry);
      else await appendNow([entry]);
    },
    async flushPending(scope) {
      const waiting = scope.pending.splice(0);
      if (waiting.length > 0) await appendNow(waiting);
    },
  };
  const appendNow = batchedAppends(async (entries) => {
    await database.transaction().execute((trx) => appendAuditEntries(trx, chainKey, entries));
    trail.onAppended?.(entries.length);
  });
  return trail;
}

/**
 * Reads noted by the requests of one turn of the event loop are appended together: one
 * transaction, one move of the chain's head and one multi-row insert for all of them, instead
 * of one each. Each caller still resolves only once its entries are committed, and every
 * caller of a batch that fails rejects (its answer must not leave).
 */
function batchedAppends(append: (entries: UnchainedEntry[]) => Promise<void>): (entries: UnchainedEntry[]) => Promise<void> {
  let open: { entries: UnchainedEntry[]; written: Promise<void> } | undefined;
  return (entries) => {
    if (!open) {
      const batch: { entries: UnchainedEntry[]; written: Promise<void> } = { entries: [], written: Promise.resolve() };
      batch.written = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        open = undefined;
        return append(batch.entries);
      });
      open = batch;
    }
    open.entries.push(...entries);
    return open.written;
  };
}
