// The groups of the group-commit driver (sqlite-group-commit.ts) on its writer connection: the
// one write transaction (BEGIN IMMEDIATE) that units join, each unit's savepoint, and when and
// how the group ends: COMMIT once it is full or the writer has been idle for a moment, then the
// fsync of the log that makes it durable (sqlite-wal-sync.ts, off the event loop), or ROLLBACK
// of everything when SQLite lost it.
//
// One committed group at most waits for its fsync: the next group keeps taking units meanwhile
// and commits once that fsync has returned. So when it returns, everything committed is durable,
// and the reads outside transactions that waited for it (reads must never see what a power cut
// could still take away) run before any later COMMIT.
import { performance } from 'node:perf_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import { DeleteQueryNode, InsertQueryNode, UpdateQueryNode, type CompiledQuery, type OperationNode, type QueryResult } from 'kysely';
import { ChangeStamps } from './sqlite-change-stamps.ts';
import type { SqliteStatements } from './sqlite-group-commit-statements.ts';
import { Group, type Outcome, type TurnQueue } from './sqlite-group-commit-units.ts';
import type { WalSync } from './sqlite-wal-sync.ts';

export interface GroupLimits {
  /** Most units of work (transactions, autocommit statements) one COMMIT covers. */
  maxUnits?: number | undefined;
  /** A group older than this (ms since its BEGIN) commits at the next hand-over. */
  maxOpenMs?: number | undefined;
  /** An idle group commits once no unit has joined for this long (ms). */
  quietMs?: number | undefined;
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

// Once a group holds as many units as the largest of the last few, the stragglers it would wait
// for are unlikely: with a fixed set of clients (each sends its next request only after its
// answer) the group is then complete, and the quiet time would only delay the COMMIT. 50 µs of a
// ~1 ms cycle: the bench's drug update gained ~7 % requests per second.
const RECENT_GROUPS = 8;

/** The savepoint each unit runs in; a caller's own savepoints nest inside it. */
export const UNIT_SAVEPOINT = 'erx_group_unit';

/**
 * True for a write that SQLite undoes in full by itself when it fails: under the default
 * conflict resolution (ABORT) a failed statement's changes are backed out and the transaction
 * stays open, so such a unit needs no savepoint of its own (two statements fewer per write).
 * Not so for OR FAIL, which keeps what a failed statement changed before the failure, nor for
 * raw SQL, which is not read here. The schema declares no ON CONFLICT FAIL and no trigger that
 * could RAISE(FAIL); test/platform/database.test.ts holds it to that.
 */
export function undoesItselfOnFailure(query: OperationNode): boolean {
  if (InsertQueryNode.is(query)) return query.orAction?.action !== 'fail';
  return UpdateQueryNode.is(query) || DeleteQueryNode.is(query);
}

export class WriterGroups {
  /** Which tables the groups wrote, and other processes' commits. */
  readonly changes: ChangeStamps;
  readonly #writer: SqliteStatements;
  readonly #turns: TurnQueue;
  readonly #maxUnits: number;
  readonly #maxOpenMs: number;
  readonly #quietMs: number;
  #group: Group | undefined;
  #idleCommit: NodeJS.Immediate | undefined;
  readonly #walSync: WalSync | undefined;
  /**
   * Set from a COMMIT until its fsync has returned and a turn of the event loop has passed (for
   * the reads woken by it): no COMMIT runs meanwhile. Resolves when the fsync returns; never rejects.
   */
  #syncing: Promise<void> | undefined;
  /** A COMMIT asked for while a sync was running. */
  #commitWanted = false;
  /** A failed fsync: what was committed may not be on the disk, so nothing is acknowledged after it. */
  #broken: Outcome;
  /** Units of the last RECENT_GROUPS committed groups (a ring); Infinity until there were as many. */
  readonly #recentSizes = new Array<number>(RECENT_GROUPS).fill(Infinity);
  #commits = 0;

  constructor(writer: SqliteStatements, turns: TurnQueue, limits: GroupLimits, walSync?: WalSync) {
    this.#writer = writer;
    this.#walSync = walSync;
    this.#turns = turns;
    this.#maxUnits = limits.maxUnits ?? DEFAULT_MAX_UNITS;
    this.#maxOpenMs = limits.maxOpenMs ?? DEFAULT_MAX_OPEN_MS;
    this.#quietMs = limits.quietMs ?? DEFAULT_QUIET_MS;
    this.changes = new ChangeStamps(writer.dataVersionReader());
  }

  /** The group open on the writer, if any. */
  get open(): Group | undefined {
    return this.#group;
  }

  /** While set, what is committed may not be durable yet: a read outside a transaction awaits it (then calls assertHealthy). */
  get syncing(): Promise<void> | undefined {
    return this.#syncing;
  }

  /** False once an fsync of the log failed. */
  get healthy(): boolean {
    return this.#broken === undefined;
  }

  assertHealthy(): void {
    if (this.#broken) throw this.#broken.error;
  }

  /** Joins the open group, opening one (BEGIN IMMEDIATE) if there is none. */
  join(): Group {
    this.assertHealthy();
    let group = this.#group;
    if (!group) {
      this.#writer.exec('begin immediate');
      group = this.#group = new Group(performance.now());
    }
    group.units += 1;
    group.lastJoinedAt = performance.now();
    return group;
  }

  /** Joins and opens the unit's savepoint: a transaction begins. */
  beginUnit(): Group {
    const group = this.join();
    this.#writer.exec(`savepoint ${UNIT_SAVEPOINT}`);
    return group;
  }

  /** One write outside a transaction, as a unit of its own in `group`. */
  runAsUnit<R>(group: Group, statement: BetterSqlite3.Statement, query: CompiledQuery): QueryResult<R> {
    this.changes.noteWrite(group, query);
    if (undoesItselfOnFailure(query.query)) return this.runIn(group, statement, query.parameters);
    this.#writer.exec(`savepoint ${UNIT_SAVEPOINT}`);
    let result: QueryResult<R>;
    try {
      result = this.runIn(group, statement, query.parameters);
    } catch (error) {
      this.undoUnit(group);
      throw error;
    }
    const failed = this.keepUnit(group);
    if (failed) throw failed.error;
    return result;
  }

  /** Runs a statement inside the open group; if SQLite rolled the whole group back on error, the group is lost. */
  runIn<R>(group: Group, statement: BetterSqlite3.Statement, parameters: readonly unknown[]): QueryResult<R> {
    this.assertOpen(group);
    try {
      return this.#writer.run(statement, parameters);
    } catch (error) {
      if (!this.#writer.inTransaction) this.#abandon(group, error);
      throw error;
    }
  }

  assertOpen(group: Group): void {
    if (group !== this.#group) throw group.failure?.error ?? new Error('SQLite group commit: the transaction has ended');
  }

  /** Keeps the unit's work in the group (RELEASE); returns why that failed, the unit then undone. */
  keepUnit(group: Group): Outcome {
    if (group !== this.#group) return undefined; // already lost; the group's outcome says why
    try {
      this.#writer.exec(`release ${UNIT_SAVEPOINT}`);
      return undefined;
    } catch (error) {
      this.undoUnit(group);
      return { error };
    }
  }

  /**
   * Undoes the unit's work (ROLLBACK TO, RELEASE). If that fails, its work can no longer be
   * told apart from the group's, and committing it is never an option: the group goes too.
   */
  undoUnit(group: Group): void {
    if (group !== this.#group) return;
    try {
      this.#writer.exec(`rollback to ${UNIT_SAVEPOINT}`);
      this.#writer.exec(`release ${UNIT_SAVEPOINT}`);
    } catch (error) {
      this.#abandon(group, error);
    }
  }

  /** At a hand-over of the writer: a full group commits now. */
  commitIfFull(): void {
    const group = this.#group;
    if (group && (group.units >= this.#maxUnits || performance.now() - group.openedAt >= this.#maxOpenMs)) this.commit();
  }

  /**
   * Nobody waits for the writer right now, but requests the event loop has already read, or is
   * about to, may still be on their way here: commit once a turn of the loop has brought no new
   * unit and none has joined for quietMs.
   */
  commitWhenIdle(): void {
    if (this.#group) this.#idleCommit ??= setImmediate(() => this.#commitWhenQuiet(this.#group?.units ?? 0));
  }

  /**
   * Commits the open group now, or, while the last group's fsync runs, as soon as it returns;
   * its units settle once the group is durable (its own fsync has returned).
   */
  commit(): void {
    const group = this.#group;
    if (!group) return;
    if (this.#syncing) {
      this.#commitWanted = true;
      return;
    }
    this.#group = undefined;
    try {
      this.#writer.exec('commit');
    } catch (error) {
      this.#rollbackAll();
      this.changes.noteEnded(group);
      group.settle({ error });
      return;
    }
    this.changes.noteEnded(group);
    this.#recentSizes[this.#commits++ % RECENT_GROUPS] = group.units;
    if (!this.#walSync) return group.settle(undefined);
    this.#syncing = this.#walSync.sync().then(
      () => this.#synced(group, undefined),
      (error: unknown) => this.#synced(group, { error }),
    );
  }

  /** For a caller holding the writer: commits the open group as soon as it may, and waits until all that is committed is durable. */
  async commitDurably(): Promise<void> {
    await this.#settled();
    this.commit();
    await this.#settled();
    this.assertHealthy();
  }

  /** The group's fsync returned: it settles; the next COMMIT waits a turn, for the reads woken now. */
  #synced(group: Group, failed: Outcome): void {
    if (failed) this.#broken ??= failed;
    group.settle(failed);
    setImmediate(() => {
      this.#syncing = undefined;
      const wanted = this.#commitWanted;
      this.#commitWanted = false;
      const open = this.#group;
      if (!open) return;
      if (this.#broken) return this.#turns.busy ? undefined : this.#abandon(open, this.#broken.error);
      // A unit holding the writer commits (or schedules) the group when it hands over.
      if (this.#turns.busy) return;
      if (wanted) this.commit();
      else this.commitWhenIdle();
    });
  }

  /** At shutdown: commits what can be (and waits for it to be durable), and fails a group a unit still holds. */
  async close(): Promise<void> {
    if (this.#idleCommit) clearImmediate(this.#idleCommit);
    this.#idleCommit = undefined;
    await this.#settled();
    if (this.#group && !this.#turns.busy && !this.#broken) this.commit();
    await this.#settled();
    if (this.#group) this.#abandon(this.#group, this.#broken?.error ?? new Error('SQLite group commit: the database closed during a transaction'));
    if (this.#idleCommit) clearImmediate(this.#idleCommit);
    this.#walSync?.close();
  }

  /** Until no fsync runs (each one's follow-up turn included). */
  async #settled(): Promise<void> {
    while (this.#syncing) {
      await this.#syncing;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Runs after each turn of the event loop (setImmediate) while a group waits for its COMMIT:
   * commits once a turn has brought no new unit and either none joined for quietMs or the group
   * is as large as the largest of the last RECENT_GROUPS.
   */
  #commitWhenQuiet(unitsBefore: number): void {
    this.#idleCommit = undefined;
    const group = this.#group;
    if (!group || this.#turns.busy) return; // the unit holding the writer hands over and schedules this again
    const complete = group.units >= Math.max(...this.#recentSizes);
    if (group.units > unitsBefore || (!complete && performance.now() - group.lastJoinedAt < this.#quietMs)) {
      this.#idleCommit = setImmediate(() => this.#commitWhenQuiet(group.units));
      return;
    }
    this.commit();
  }

  /** Rolls back everything the group did; all its units reject with `error`. */
  #abandon(group: Group, error: unknown): void {
    if (group !== this.#group) return;
    this.#group = undefined;
    this.#rollbackAll();
    this.changes.noteEnded(group);
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
