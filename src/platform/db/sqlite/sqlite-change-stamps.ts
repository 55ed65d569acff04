// The group-commit driver's change stamps (sqlite-group-commit.ts): which tables each group
// wrote, read off Kysely's query tree, and SQLite's data_version for other processes' commits.
// A write it cannot vouch for (raw SQL, deletes, schema changes, CTEs) changes every table.
import { performance } from 'node:perf_hooks';
import { AliasNode, InsertQueryNode, TableNode, UpdateQueryNode, type CompiledQuery, type OperationNode } from 'kysely';
import type { Group } from './sqlite-group-commit-units.ts';

// Reading data_version takes SQLite's shared-memory locks, a few system calls: as much as the
// cached reads it guards save. Once a millisecond is enough to notice another process's commit.
const EXTERNAL_CHANGE_CHECK_MS = 1;

function tableName(node: OperationNode | undefined): string | undefined {
  const table = node && AliasNode.is(node) ? node.node : node;
  return table && TableNode.is(table) && !table.table.schema ? table.table.identifier.name : undefined;
}

/** The one table an INSERT or UPDATE writes, or undefined: assume every table changed. */
export function tableWrittenBy(query: OperationNode): string | undefined {
  // Deletes count as unknown on purpose: a foreign key with ON DELETE could reach further.
  if (InsertQueryNode.is(query) && !query.with) return tableName(query.into);
  if (UpdateQueryNode.is(query) && !query.with) return tableName(query.table);
  return undefined;
}

export class ChangeStamps {
  /** Bumped when a group that wrote the table ends (committed or not). */
  readonly #tableVersions = new Map<string, number>();
  /** Bumped when a group ends that wrote tables it could not name. */
  #everyTableVersion = 0;
  readonly #dataVersion: () => number | undefined;
  #externalSeen: number | undefined;
  #externalCheckedAt: number | undefined;

  /** `dataVersion` reads SQLite's data_version on the writer, which moves only with other connections' commits. */
  constructor(dataVersion: () => number | undefined) {
    this.#dataVersion = dataVersion;
  }

  /** See SqliteGroupCommitDriver.changeStamp. */
  stamp(tables: readonly string[]): string | undefined {
    const external = this.#externalVersion();
    if (external === undefined) return undefined;
    let own = this.#everyTableVersion;
    for (const table of tables) own += this.#tableVersions.get(table) ?? 0;
    return `${external}:${own}`;
  }

  noteWrite(group: Group, query: CompiledQuery): void {
    if (!group.written) return;
    const table = tableWrittenBy(query.query);
    if (table === undefined) group.written = null;
    else group.written.add(table);
  }

  /** A group has ended: what it wrote may have changed, whether it committed or rolled back. */
  noteEnded(group: Group): void {
    if (!group.written) this.#everyTableVersion += 1;
    else for (const table of group.written) this.#tableVersions.set(table, (this.#tableVersions.get(table) ?? 0) + 1);
  }

  #externalVersion(): number | undefined {
    const now = performance.now();
    if (this.#externalCheckedAt === undefined || now - this.#externalCheckedAt >= EXTERNAL_CHANGE_CHECK_MS) {
      this.#externalSeen = this.#dataVersion();
      this.#externalCheckedAt = this.#externalSeen === undefined ? undefined : now;
    }
    return this.#externalSeen;
  }
}
