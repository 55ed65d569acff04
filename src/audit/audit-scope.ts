// Whose access an audit entry records. An HTTP request, a portal page or an `erx` command runs
// in an audit scope: who acts (set once they are authenticated), for which HPI-O, the request
// id and the client address. Services record only what they did; the trail completes each
// entry from the scope it was recorded in. The scope travels with the request through
// AsyncLocalStorage, as Medplum's request context does, so the services' signatures need not
// carry the request. Reads and HI lookups noted during a request wait in the scope and are
// written together just before its answer leaves (audit-hooks.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActor, ScopeFacts, UnchainedEntry } from './audit-entry.ts';

export interface AuditScope extends ScopeFacts {
  /** Reads and HI lookups of this scope not yet written (completed as of when they happened). */
  pending: UnchainedEntry[];
  /**
   * Whether reads wait in `pending` for the scope's flush (a change the scope commits may carry
   * them) or are written as they are noted. A request that changes nothing notes at most one
   * read, so only requests that may change something defer (audit-hooks.ts).
   */
  deferred: boolean;
}

const storage = new AsyncLocalStorage<AuditScope>();

/** The scope the caller runs in; undefined outside any (erx's own work: a seed, a test's direct call). */
export function currentAuditScope(): AuditScope | undefined {
  return storage.getStore();
}

/** Runs `work` in a new scope; by default its reads wait for its flush. */
export function runInAuditScope<T>(scope: ScopeFacts, work: () => T, options: { deferred: boolean } = { deferred: true }): T {
  // Field by field, not a spread: this runs for every request (see BENCHMARKS.md, decisions).
  const opened: AuditScope = {
    actor: scope.actor,
    hpio: scope.hpio,
    requestId: scope.requestId,
    clientAddress: scope.clientAddress,
    pending: [],
    deferred: options.deferred,
  };
  return storage.run(opened, work);
}

/** Names who acts in the current scope, once authenticated (and the organization's HPI-O). */
export function identifyAuditActor(actor: AuditActor, hpio: string | null = null): void {
  const scope = storage.getStore();
  if (!scope) return;
  scope.actor = actor;
  scope.hpio = hpio;
}
