// Group commit for the embedded SQLite: many write transactions share one durable COMMIT.
//
// With synchronous=FULL every COMMIT waits for an fsync, and better-sqlite3 runs it on the
// event loop, so committing each transaction alone caps all writes at the disk's fsync rate
// however many requests are in flight. This driver keeps one write transaction (a group) open
// across several units of work: the first unit opens it with BEGIN IMMEDIATE (taking the write
// lock up front, so another process on the file queues on busy_timeout instead of failing when
// it tries to upgrade), each transaction and each autocommit write runs inside its own
// SAVEPOINT, and the connection passes to the next waiting unit without committing. When no
// unit has joined for a turn of the event loop and a short quiet time, or the group is full,
// one COMMIT makes the whole group durable. Only then does any unit of the group settle; if the COMMIT
// fails, every one rejects. A unit that fails is rolled back to its savepoint and rejects with
// its own error; its neighbours keep their work.
//
// Units still run one at a time on the one writer connection, in arrival order, so
// transactions stay serializable. Reads outside transactions go to a second, reader connection
// to the same file: in WAL mode it sees only what has been committed, so such a read neither
// waits for an open group nor sees inside it. Without a reader (':memory:') a read made while a
// group is open runs inside it and, like the writes, reaches its caller only after the COMMIT
// (Kysely hands a result over only once releaseConnection has finished). Either way no caller
// sees data that is not yet durable.
//
// The one rule for callers: a transaction must not wait, inside its callback, for another
// transaction's result. The other one may be in the same group, and it settles only when the
// group commits, which is after this one ends.
import { performance } from 'node:perf_hooks';
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
import { Group, Lease, type Outcome, TurnQueue } from './sqlite-group-commit-units.ts';
import { ChangeStamps } from './sqlite-change-stamps.ts';

export interface GroupCommitOptions {
  /** Most units of work (transactions, autocommit statements) one COMMIT covers. */
  maxUnits?: number;
  /** A group older than this (ms since its BEGIN) commits at the next hand-over. */
  maxOpenMs?: number;
  /** An idle group commits once no unit has joined for this long (ms). */
  quietMs?: number;
  /** Sees every statement just before it runs, the driver's own BEGIN/SAVEPOINT/COMMIT too. For tests. */
  onStatement?: (sql: string) => void;
}

export interface SqliteGroupCommitConfig extends GroupCommitOptions {
  /** The connection every transaction and write runs on. */
  database: BetterSqlite3.Database;
  /** A second connection to the same file, for reads outside transactions; none for ':memory:'. */
  reader?: BetterSqlite3.Database | undefined;
}

// The group's first unit waits for every later one and then for the fsync (~0.4 ms here).
// At 64 units the fsync costs each unit ~6 µs, so larger groups gain little while that wait
// keeps growing; 5 ms bounds it, and how long another process waits for the write lock, when
// the units themselves are slow.
const DEFAULT_MAX_UNITS = 64;
const DEFAULT_MAX_OPEN_MS = 5;
// Requests whose responses left with the last COMMIT come back in a burst, a few at a time
// per turn of the event loop; waiting 50 µs for stragglers took the bench's drug update from
// 6.5 to 9.7 units per COMMIT (of 10 in flight) and ~8 % more requests per second.
const DEFAULT_QUIET_MS = 0.05;

/** The savepoint each unit runs in; a caller's own savepoints nest inside it. */
const UNIT_SAVEPOINT = 'erx_group_unit';

export class SqliteGroupCommitDriver implements Driver {
  readonly #writer: SqliteStatements;
  readonly #reader: SqliteReader | undefined;
  readonly #maxUnits: number;
  readonly #maxOpenMs: number;
  readonly #quietMs: number;
  readonly #turns = new TurnQueue();
  #group: Group | undefined;
  readonly #changes: ChangeStamps;
  #idleCommit: NodeJS.Immediate | undefined;
  readonly #executeOn = <R>(lease: Lease, query: CompiledQuery) => this.#execute<R>(lease, query);
  readonly #streamOn = <R>(lease: Lease, query: CompiledQuery) => this.#stream<R>(lease, query);

  constructor(config: SqliteGroupCommitConfig) {
    this.#writer = new SqliteStatements(config.database, config.onStatement);
    this.#reader = config.reader ? new SqliteReader(config.reader, config.onStatement) : undefined;
    this.#maxUnits = config.maxUnits ?? DEFAULT_MAX_UNITS;
    this.#maxOpenMs = config.maxOpenMs ?? DEFAULT_MAX_OPEN_MS;
    this.#quietMs = config.quietMs ?? DEFAULT_QUIET_MS;
    this.#changes = new ChangeStamps(this.#writer.dataVersionReader());
  }

  async init(): Promise<void> {}

  /**
   * Runs a read-only query on the reader connection right away, without a lease or a turn:
   * what a plain read through Kysely would do, minus the promises. Undefined when there is no
   * reader or the query is not a pure read; the caller then goes through Kysely.
   */
  readNow<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined {
    const read = this.#reader?.statementFor(sql);
    return read ? this.#reader!.run<R>(read, parameters) : undefined;
  }

  /** The lease takes its turn on the writer only when it first needs it, so reads need not queue. */
  /**
   * A value that differs whenever `tables` may have changed since it was last taken: at once
   * when a group of this driver that wrote one of them has ended, and within a millisecond when
   * another connection (another process: the CLI) committed anything at all. Undefined when that
   * cannot be told right now. Take it before reading what it is to vouch for, so a change in
   * between shows at the next check.
   */
  changeStamp(tables: readonly string[]): string | undefined {
    return this.#changes.stamp(tables);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this.#executeOn, this.#streamOn);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = Lease.of(connection);
    if (!this.#turns.isOwner(lease)) await this.#turns.take(lease);
    if (lease.transaction) throw new Error('SQLite group commit: a transaction is already open on this connection');
    const group = this.#joinGroup();
    this.#writer.exec(`savepoint ${UNIT_SAVEPOINT}`);
    lease.transaction = group;
  }

  /** Ends the unit, passes the connection on, then waits for the group's COMMIT. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = Lease.of(connection);
    const group = lease.endTransaction();
    const failed = this.#keepUnit(group);
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
    this.#undoUnit(group);
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
    if (lease.transaction) this.#undoUnit(lease.endTransaction()); // never commit work Kysely did not commit
    this.#handOver(lease);
    for (const group of lease.joined) {
      const outcome = await group.outcome;
      if (outcome) throw outcome.error;
    }
  }

  async destroy(): Promise<void> {
    if (this.#idleCommit) clearImmediate(this.#idleCommit);
    if (this.#group && !this.#turns.busy) this.#commit();
    if (this.#group) this.#abandonGroup(this.#group, new Error('SQLite group commit: the database closed during a transaction'));
    this.#turns.close(new Error('SQLite group commit: the database is closed'));
    this.#reader?.close();
    this.#writer.close();
  }

  async #execute<R>(lease: Lease, query: CompiledQuery): Promise<QueryResult<R>> {
    const read = lease.isPlain ? this.#reader?.statementFor(query.sql) : undefined;
    if (read) return this.#reader!.run(read, query.parameters);
    if (!this.#turns.isOwner(lease)) await this.#turns.take(lease);
    const statement = this.#writer.prepare(query.sql);
    if (lease.transaction) {
      if (!statement.readonly) this.#changes.noteWrite(lease.transaction, query);
      return this.#runInGroup(lease.transaction, statement, query.parameters);
    }
    if (statement.readonly && !this.#group) return this.#writer.run(statement, query.parameters);
    const group = this.#joinGroup();
    lease.join(group);
    if (statement.readonly) return this.#runInGroup(group, statement, query.parameters);
    this.#changes.noteWrite(group, query);
    this.#writer.exec(`savepoint ${UNIT_SAVEPOINT}`);
    let result: QueryResult<R>;
    try {
      result = this.#runInGroup(group, statement, query.parameters);
    } catch (error) {
      this.#undoUnit(group);
      throw error;
    }
    const failed = this.#keepUnit(group);
    if (failed) throw failed.error;
    return result;
  }

  async *#stream<R>(lease: Lease, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite group commit: only select queries can stream');
    const reader = lease.isPlain ? this.#reader : undefined;
    const read = reader?.statementFor(query.sql);
    if (reader && read) return yield* reader.iterate<R>(read, query.parameters);
    if (!this.#turns.isOwner(lease)) await this.#turns.take(lease);
    if (lease.transaction) this.#assertOpen(lease.transaction);
    // Rows leave one by one while the query runs, so outside a transaction they must be durable already.
    else if (this.#group) this.#commit();
    yield* this.#writer.iterate<R>(this.#writer.prepare(query.sql), query.parameters);
  }

  #savepointCommand(connection: DatabaseConnection, command: string, name: string, compileQuery: QueryCompiler['compileQuery']) {
    if (name.toLowerCase() === UNIT_SAVEPOINT) throw new Error(`SQLite group commit: the savepoint name ${name} is reserved`);
    const node = RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
    return connection.executeQuery(compileQuery(node, createQueryId()));
  }

  #joinGroup(): Group {
    let group = this.#group;
    if (!group) {
      this.#writer.exec('begin immediate');
      group = this.#group = new Group(performance.now());
    }
    group.units += 1;
    group.lastJoinedAt = performance.now();
    return group;
  }

  /** Runs a statement inside the open group; if SQLite rolled the whole group back on error, the group is lost. */
  #runInGroup<R>(group: Group, statement: BetterSqlite3.Statement, parameters: readonly unknown[]): QueryResult<R> {
    this.#assertOpen(group);
    try {
      return this.#writer.run(statement, parameters);
    } catch (error) {
      if (!this.#writer.inTransaction) this.#abandonGroup(group, error);
      throw error;
    }
  }

  #assertOpen(group: Group): void {
    if (group !== this.#group) throw group.failure?.error ?? new Error('SQLite group commit: the transaction has ended');
  }

  /** Keeps the unit's work in the group (RELEASE); returns why that failed, the unit then undone. */
  #keepUnit(group: Group): Outcome {
    if (group !== this.#group) return undefined; // already lost; the group's outcome says why
    try {
      this.#writer.exec(`release ${UNIT_SAVEPOINT}`);
      return undefined;
    } catch (error) {
      this.#undoUnit(group);
      return { error };
    }
  }

  /**
   * Undoes the unit's work (ROLLBACK TO, RELEASE). If that fails, its work can no longer be
   * told apart from the group's, and committing it is never an option: the group goes too.
   */
  #undoUnit(group: Group): void {
    if (group !== this.#group) return;
    try {
      this.#writer.exec(`rollback to ${UNIT_SAVEPOINT}`);
      this.#writer.exec(`release ${UNIT_SAVEPOINT}`);
    } catch (error) {
      this.#abandonGroup(group, error);
    }
  }

  /** The connection goes to the next waiting unit, without a COMMIT unless the group is full. */
  #handOver(lease: Lease): void {
    if (!this.#turns.isOwner(lease)) return;
    if (this.#group && this.#isFull(this.#group)) this.#commit();
    if (this.#turns.passOn() || !this.#group) return;
    // Nobody waits right now, but requests the event loop has already read, or is about to,
    // may still be on their way here: commit once a turn of the loop has brought no new unit
    // and none has joined for quietMs.
    this.#idleCommit ??= setImmediate(() => this.#commitWhenQuiet(this.#group?.units ?? 0));
  }

  /** Runs after each turn of the event loop (setImmediate) while a group waits for its COMMIT. */
  #commitWhenQuiet(unitsBefore: number): void {
    this.#idleCommit = undefined;
    const group = this.#group;
    if (!group || this.#turns.busy) return; // the unit holding the writer hands over and schedules this again
    if (group.units > unitsBefore || performance.now() - group.lastJoinedAt < this.#quietMs) {
      this.#idleCommit = setImmediate(() => this.#commitWhenQuiet(group.units));
      return;
    }
    this.#commit();
  }

  #isFull(group: Group): boolean {
    return group.units >= this.#maxUnits || performance.now() - group.openedAt >= this.#maxOpenMs;
  }

  #commit(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = undefined;
    try {
      this.#writer.exec('commit');
    } catch (error) {
      this.#rollbackAll();
      this.#changes.noteEnded(group);
      group.settle({ error });
      return;
    }
    this.#changes.noteEnded(group);
    group.settle(undefined);
  }

  /** Rolls back everything the group did; all its units reject with `error`. */
  #abandonGroup(group: Group, error: unknown): void {
    if (group !== this.#group) return;
    this.#group = undefined;
    this.#rollbackAll();
    this.#changes.noteEnded(group);
    group.settle({ error });
  }

  #rollbackAll(): void {
    if (!this.#writer.inTransaction) return;
    try {
      this.#writer.exec('rollback');
    } catch {
      // Nothing more can be done here; the next BEGIN IMMEDIATE fails and reports it.
    }
  }
}
