// Group commit for the embedded SQLite: many write transactions share one durable COMMIT.
//
// With synchronous=FULL every COMMIT waits for an fsync, and better-sqlite3 runs it on the
// event loop, so committing each transaction alone caps all writes at the disk's fsync rate
// however many requests are in flight, and the process does nothing else while it waits. So
// the writer runs with synchronous=NORMAL and a group is made durable by an fsync of the log
// on libuv's thread pool (sqlite-wal-sync.ts), which the next group fills up behind; nothing
// of a group (an answer, an audit entry, an event) is released before that fsync returns, and
// no read outside a transaction sees a group before it (decision 28: synchronous=FULL
// semantics, the wait off the event loop). This driver keeps one write transaction (a group) open
// across several units of work: the first unit opens it with BEGIN IMMEDIATE (taking the write
// lock up front, so another process on the file queues on busy_timeout instead of failing when
// it tries to upgrade), each transaction runs inside its own SAVEPOINT (an autocommit write
// too, unless SQLite undoes it in full by itself when it fails), and the connection passes to
// the next waiting unit without committing. When no unit has joined for a turn of the event
// loop and a short quiet time (no quiet time once the group is as large as the largest of the
// last few), or the group is full, one COMMIT and one fsync make the whole group durable.
// Only then does any unit of the group settle; if either fails, every one rejects. A unit
// that fails is undone (to its savepoint, or by SQLite) and rejects with its own error; its
// neighbours keep their work.
//
// Units still run one at a time on the one writer connection, in arrival order, so
// transactions stay serializable. Reads outside transactions go to a second, reader connection
// to the same file: in WAL mode it sees only what has been committed, so such a read neither
// waits for an open group nor sees inside it. Without a reader (':memory:') a read made while a
// group is open runs inside it and, like the writes, reaches its caller only after the COMMIT
// (Kysely hands a result over only once releaseConnection has finished). A read outside a
// transaction made while a committed group waits for its fsync waits for it too. Either way no
// caller sees data that is not yet durable.
//
// The one rule for callers: a transaction must not wait, inside its callback, for another
// transaction's result. The other one may be in the same group, and it settles only when the
// group commits, which is after this one ends.
//
// This file is the Kysely side (leases, turns, transactions, reads); the group on the writer
// connection, its units' savepoints and its COMMIT are in sqlite-group-commit-groups.ts.
import type BetterSqlite3 from 'better-sqlite3';
import {
  createQueryId,
  IdentifierNode,
  RawNode,
  SelectQueryNode,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { SqliteReader, SqliteStatements } from './sqlite-group-commit-statements.ts';
import { UNIT_SAVEPOINT, WriterGroups, type GroupLimits } from './sqlite-group-commit-groups.ts';
import { Lease, TurnQueue, type Outcome } from './sqlite-group-commit-units.ts';
import type { WalSync } from './sqlite-wal-sync.ts';

export interface GroupCommitOptions extends GroupLimits {
  /** Sees every statement just before it runs, the driver's own BEGIN/SAVEPOINT/COMMIT too. For tests. */
  onStatement?: (sql: string) => void;
  /** Runs each fsync of the log (`sync`) in its place, so a test can hold it back or fail it. */
  aroundSync?: (sync: () => Promise<void>) => Promise<void>;
}

export interface SqliteGroupCommitConfig extends GroupCommitOptions {
  /** The connection every transaction and write runs on. */
  database: BetterSqlite3.Database;
  /** A second connection to the same file, for reads outside transactions; none for ':memory:'. */
  reader?: BetterSqlite3.Database | undefined;
  /** What makes a committed group durable (the log's fsync); none for ':memory:', whose COMMIT is all there is. */
  walSync?: WalSync | undefined;
}

export class SqliteGroupCommitDriver implements Driver {
  readonly #writer: SqliteStatements;
  readonly #reader: SqliteReader | undefined;
  readonly #turns = new TurnQueue();
  readonly #groups: WriterGroups;
  readonly #executeOn = <R>(lease: Lease, query: CompiledQuery) => this.#execute<R>(lease, query);
  readonly #streamOn = <R>(lease: Lease, query: CompiledQuery) => this.#stream<R>(lease, query);

  constructor(config: SqliteGroupCommitConfig) {
    this.#writer = new SqliteStatements(config.database, config.onStatement);
    this.#reader = config.reader ? new SqliteReader(config.reader, config.onStatement) : undefined;
    const { walSync, aroundSync } = config;
    const durability = walSync && aroundSync ? { ...walSync, sync: () => aroundSync(() => walSync.sync()) } : walSync;
    this.#groups = new WriterGroups(this.#writer, this.#turns, config, durability);
  }

  async init(): Promise<void> {}

  /**
   * Runs a read-only query on the reader connection right away, without a lease or a turn:
   * what a plain read through Kysely would do, minus the promises. Undefined when there is no
   * reader, the query is not a pure read, or a committed group is not durable yet; the caller
   * then goes through Kysely (which waits for it).
   */
  readNow<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined {
    if (this.#groups.syncing) return undefined;
    const read = this.#reader?.statementFor(sql);
    return read ? this.#reader!.run<R>(read, parameters) : undefined;
  }

  /**
   * Runs a write outside any transaction right away, as a unit of its own in the open group,
   * when nothing holds the writer: what Kysely's path does with such a write, minus the lease
   * and its promises. Like every write it resolves only once its group has committed.
   * Undefined when a transaction holds the writer or the query is no write; the caller then
   * goes through Kysely and waits its turn.
   */
  writeNow<R>(query: CompiledQuery): Promise<QueryResult<R>> | undefined {
    if (this.#turns.busy || !this.#groups.healthy) return undefined;
    let statement: BetterSqlite3.Statement;
    try {
      statement = this.#writer.prepare(query.sql);
    } catch {
      return undefined; // Kysely's path reports it
    }
    if (statement.readonly) return undefined;
    const group = this.#groups.join();
    let result: QueryResult<R> | undefined;
    let failed: Outcome;
    try {
      result = this.#groups.runAsUnit<R>(group, statement, query);
    } catch (error) {
      failed = { error };
    }
    // Nobody waits for the writer (it was free), so the group commits when full or idle.
    this.#groups.commitIfFull();
    this.#groups.commitWhenIdle();
    // Like every unit it settles with its group; the group's failure outranks its own.
    return group.outcome.then((outcome) => {
      const failure = outcome ?? failed;
      if (failure) throw failure.error;
      return result!;
    });
  }

  /**
   * A value that differs whenever `tables` may have changed since it was last taken: at once
   * when a group of this driver that wrote one of them has ended, and within a millisecond when
   * another connection (another process: the CLI) committed anything at all. Undefined when that
   * cannot be told right now. Take it before reading what it is to vouch for, so a change in
   * between shows at the next check.
   */
  changeStamp(tables: readonly string[]): string | undefined {
    return this.#groups.changes.stamp(tables);
  }

  /** The lease takes its turn on the writer only when it first needs it, so reads need not queue. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this.#executeOn, this.#streamOn);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = Lease.of(connection);
    if (!this.#turns.isOwner(lease)) await this.#turns.take(lease);
    if (lease.transaction) throw new Error('SQLite group commit: a transaction is already open on this connection');
    lease.transaction = this.#groups.beginUnit();
  }

  /** Ends the unit, passes the connection on, then waits for the group's COMMIT. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = Lease.of(connection);
    const group = lease.endTransaction();
    const failed = this.#groups.keepUnit(group);
    this.#handOver(lease);
    const outcome = await group.outcome;
    if (failed) throw failed.error;
    if (outcome) throw outcome.error;
  }

  /** Undoes the unit; settles no earlier than its group, since its failure may stem from what it read there. */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = Lease.of(connection);
    if (!lease.transaction) return; // Kysely also rolls back after a failed commit: nothing is left to undo
    const group = lease.endTransaction();
    this.#groups.undoUnit(group);
    this.#handOver(lease);
    await group.outcome;
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#savepointCommand(connection, 'savepoint', name, compileQuery);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#savepointCommand(connection, 'rollback to', name, compileQuery);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#savepointCommand(connection, 'release', name, compileQuery);
  }

  /** Passes the connection on, then waits for the COMMIT of every group this lease's statements ran in. */
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = Lease.of(connection);
    if (lease.transaction) this.#groups.undoUnit(lease.endTransaction()); // never commit work Kysely did not commit
    this.#handOver(lease);
    for (const group of lease.joined) {
      const outcome = await group.outcome;
      if (outcome) throw outcome.error;
    }
  }

  async destroy(): Promise<void> {
    await this.#groups.close();
    this.#turns.close(new Error('SQLite group commit: the database is closed'));
    this.#reader?.close();
    this.#writer.close();
  }

  async #execute<R>(lease: Lease, query: CompiledQuery): Promise<QueryResult<R>> {
    const read = lease.isPlain ? this.#reader?.statementFor(query.sql) : undefined;
    if (read) {
      if (this.#groups.syncing || !this.#groups.healthy) await this.#durable();
      return this.#reader!.run(read, query.parameters);
    }
    if (!this.#turns.isOwner(lease)) await this.#turns.take(lease);
    const statement = this.#writer.prepare(query.sql);
    if (lease.transaction) {
      if (!statement.readonly) this.#groups.changes.noteWrite(lease.transaction, query);
      return this.#groups.runIn(lease.transaction, statement, query.parameters);
    }
    if (statement.readonly && !this.#groups.open) {
      // No group can open meanwhile: this lease holds the writer.
      if (this.#groups.syncing || !this.#groups.healthy) await this.#durable();
      return this.#writer.run(statement, query.parameters);
    }
    const group = this.#groups.join();
    lease.join(group);
    if (statement.readonly) return this.#groups.runIn(group, statement, query.parameters);
    return this.#groups.runAsUnit(group, statement, query);
  }

  async *#stream<R>(lease: Lease, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite group commit: only select queries can stream');
    const reader = lease.isPlain ? this.#reader : undefined;
    const read = reader?.statementFor(query.sql);
    if (reader && read) {
      if (this.#groups.syncing || !this.#groups.healthy) await this.#durable();
      return yield* reader.iterate<R>(read, query.parameters);
    }
    if (!this.#turns.isOwner(lease)) await this.#turns.take(lease);
    if (lease.transaction) this.#groups.assertOpen(lease.transaction);
    // Rows leave one by one while the query runs, so outside a transaction they must be durable already.
    else await this.#groups.commitDurably();
    yield* this.#writer.iterate<R>(this.#writer.prepare(query.sql), query.parameters);
  }

  #savepointCommand(connection: DatabaseConnection, command: string, name: string, compileQuery: QueryCompiler['compileQuery']) {
    if (name.toLowerCase() === UNIT_SAVEPOINT) throw new Error(`SQLite group commit: the savepoint name ${name} is reserved`);
    const node = RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
    return connection.executeQuery(compileQuery(node, createQueryId()));
  }

  /**
   * Until what is committed is durable. The read that awaited it runs before any later COMMIT
   * (that waits a turn of the event loop after the fsync returns), so it sees durable data only.
   */
  async #durable(): Promise<void> {
    const syncing = this.#groups.syncing;
    if (syncing) await syncing;
    this.#groups.assertHealthy();
  }

  /** The connection goes to the next waiting unit, without a COMMIT unless the group is full. */
  #handOver(lease: Lease): void {
    if (!this.#turns.isOwner(lease)) return;
    this.#groups.commitIfFull();
    if (!this.#turns.passOn()) this.#groups.commitWhenIdle();
  }
}
