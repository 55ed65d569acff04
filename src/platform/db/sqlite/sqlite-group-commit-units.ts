// The pieces the group-commit driver (sqlite-group-commit.ts) moves around: the group of units
// that one COMMIT will cover, the lease Kysely holds while it uses the connection, and the
// first-come-first-served queue of leases waiting for their turn on it.
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';

/** How a group ended: undefined when its COMMIT succeeded, else why it failed. */
export type Outcome = { error: unknown } | undefined;

export class Group {
  /** Units that joined: transactions, autocommit writes, reads that ran while it was open. */
  units = 0;
  /** performance.now() when the last unit joined. */
  lastJoinedAt = 0;
  /** Set when the group failed, for checks that cannot wait for `outcome`. */
  failure: Outcome;
  /** The tables its writes changed; null once a write changed tables it cannot name. */
  written: Set<string> | null = new Set();
  /** Settles once COMMIT has run or the group was rolled back; never rejects. */
  readonly outcome: Promise<Outcome>;
  readonly #resolve: (outcome: Outcome) => void;

  constructor(readonly openedAt: number) {
    let resolve!: (outcome: Outcome) => void;
    this.outcome = new Promise((settle) => {
      resolve = settle;
    });
    this.#resolve = resolve;
  }

  settle(outcome: Outcome): void {
    this.failure = outcome;
    this.#resolve(outcome);
  }
}

type Execute = (lease: Lease, query: CompiledQuery) => Promise<QueryResult<any>>;
type Stream = (lease: Lease, query: CompiledQuery) => AsyncIterableIterator<QueryResult<any>>;

/**
 * One acquisition of the connection by Kysely. A lease takes its turn on the writer only when it
 * first needs it, gives it up as soon as its transaction ends (before the group commits), and
 * takes a turn again if it runs more statements after that.
 */
export class Lease implements DatabaseConnection {
  /** The group the open transaction runs in; its savepoint is open while this is set. */
  transaction: Group | undefined;
  /** Groups this lease's statements outside a transaction ran in; its release waits for them. */
  readonly joined: Group[] = [];
  readonly #execute: Execute;
  readonly #stream: Stream;

  constructor(execute: Execute, stream: Stream) {
    this.#execute = execute;
    this.#stream = stream;
  }

  static of(connection: DatabaseConnection): Lease {
    if (connection instanceof Lease) return connection;
    throw new Error('SQLite group commit: not a connection from this driver');
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.#execute(this, query);
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.#stream(this, query);
  }

  /** Neither in a transaction nor tied to a group, so its reads may go to the reader connection. */
  get isPlain(): boolean {
    return this.transaction === undefined && this.joined.length === 0;
  }

  endTransaction(): Group {
    const group = this.transaction;
    if (!group) throw new Error('SQLite group commit: no transaction is open on this connection');
    this.transaction = undefined;
    return group;
  }

  join(group: Group): void {
    if (this.joined[this.joined.length - 1] !== group) this.joined.push(group);
  }
}

interface Waiter {
  lease: Lease;
  grant: () => void;
  refuse: (error: Error) => void;
}

/** Who holds the writer connection, and who waits for it, first come first served. */
export class TurnQueue {
  #owner: Lease | undefined;
  readonly #waiting: Waiter[] = [];
  #closed: Error | undefined;

  get busy(): boolean {
    return this.#owner !== undefined;
  }

  isOwner(lease: Lease): boolean {
    return this.#owner === lease;
  }

  take(lease: Lease): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (!this.#owner) {
      this.#owner = lease;
      return Promise.resolve();
    }
    return new Promise((grant, refuse) => {
      this.#waiting.push({ lease, grant, refuse });
    });
  }

  /** Gives the connection to the next waiter; false when nobody waits (it is then free). */
  passOn(): boolean {
    const next = this.#waiting.shift();
    this.#owner = next?.lease;
    next?.grant();
    return next !== undefined;
  }

  close(reason: Error): void {
    this.#closed = reason;
    for (const waiter of this.#waiting.splice(0)) waiter.refuse(reason);
  }
}
