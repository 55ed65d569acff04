// The audit trail's queries. Entries are only ever appended (appendAuditEntries) and read; the
// one delete is retention's, of entries past the retention horizon (deleteAuditEntriesThrough).
// Appending takes the chain head's row lock first (an UPDATE of its one row), so appenders on
// any number of instances take turns and sequence numbers have no gaps.
import { sql, type Kysely } from 'kysely';
import { auditEntriesColumns } from '../platform/db/audit-tables.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { precompileQuery, type PrecompiledQuery } from '../platform/db/precompiled-query.ts';
import { chainEntries, type StoredAuditEntry } from './audit-chain.ts';
import type { UnchainedEntry } from './audit-entry.ts';

type Db = Kysely<Database>;

export interface ChainPoint {
  seq: number;
  hash: string;
}

// The three statements of every append, compiled once (building and compiling them through
// Kysely cost more than running them on SQLite: ~6 % of a precheck, BENCHMARKS.md).
const moveChainHead = precompileQuery<{ count: number }, { last_seq: number | bigint; last_hash: string }>((db, param) =>
  db.updateTable('audit_chain').set({ last_seq: sql`last_seq + ${param('count')}` }).where('id', '=', 1).returning(['last_seq', 'last_hash']),
);
const setChainHash = precompileQuery<{ hash: string }, never>((db, param) =>
  db.updateTable('audit_chain').set({ last_hash: param('hash') }).where('id', '=', 1),
);

/** Every column of an entry, in the order each row's values are bound. */
const ENTRY_COLUMNS = Object.keys(auditEntriesColumns) as (keyof StoredAuditEntry)[];
/** Rows per insert, within each dialect's limit on bound parameters. */
const ROWS_PER_INSERT = 50;
/** The insert of n rows (1 to ROWS_PER_INSERT), its values named by their position: row × columns + column. */
const insertsOfRows: PrecompiledQuery<Record<string, unknown>, never>[] = [];

function insertOfRows(count: number): PrecompiledQuery<Record<string, unknown>, never> {
  return (insertsOfRows[count] ??= precompileQuery<Record<string, unknown>, never>((db, param) =>
    db.insertInto('audit_entries').values(
      Array.from({ length: count }, (_, row) =>
        Object.fromEntries(ENTRY_COLUMNS.map((column, index) => [column, param(String(row * ENTRY_COLUMNS.length + index))])) as StoredAuditEntry,
      ),
    ),
  ));
}

async function insertEntries(trx: Db, rows: readonly StoredAuditEntry[]): Promise<void> {
  // Integer keys: the object keeps them as elements, an array in all but name.
  const values: Record<string, unknown> = {};
  let position = 0;
  for (const row of rows) for (const column of ENTRY_COLUMNS) values[position++] = row[column] ?? null;
  await insertOfRows(rows.length)(trx, values);
}

/** Appends `entries` in `trx` after the chain's head; returns them as stored. */
export async function appendAuditEntries(trx: Db, key: Buffer, entries: readonly UnchainedEntry[]): Promise<StoredAuditEntry[]> {
  // Moving last_seq on first takes the row's lock (PostgreSQL) or the write lock (SQLite) at once.
  const [moved] = await moveChainHead(trx, { count: entries.length });
  if (!moved) throw new Error('the audit chain has no head row (id 1)');
  const after = { seq: Number(moved.last_seq) - entries.length, hash: moved.last_hash };
  const chained = chainEntries(key, after, entries);
  for (let start = 0; start < chained.length; start += ROWS_PER_INSERT) await insertEntries(trx, chained.slice(start, start + ROWS_PER_INSERT));
  await setChainHash(trx, { hash: chained[chained.length - 1]!.hash });
  return chained;
}

export async function findChainEnds(db: Db): Promise<{ anchor: ChainPoint; head: ChainPoint }> {
  const row = await db.selectFrom('audit_chain').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  return { anchor: { seq: Number(row.anchor_seq), hash: row.anchor_hash }, head: { seq: Number(row.last_seq), hash: row.last_hash } };
}

/** Entries after `afterSeq`, in seq order, at most `limit`. */
export async function findAuditEntriesAfter(db: Db, afterSeq: number, limit: number): Promise<StoredAuditEntry[]> {
  const rows = await db.selectFrom('audit_entries').selectAll().where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  return rows.map(withNumericSeq);
}

export interface AuditFilter {
  organizationId?: string;
  patientId?: string;
  /** The acting user or the user acted on. */
  userId?: string;
  scid?: string;
  action?: string;
  since?: string;
  until?: string;
  /** Entries before this seq (the next page, newest first). */
  beforeSeq?: number;
}

/** The newest entries matching `filter`, newest first. */
export async function findAuditEntries(db: Db, filter: AuditFilter, limit: number): Promise<StoredAuditEntry[]> {
  let query = db.selectFrom('audit_entries').selectAll();
  if (filter.organizationId !== undefined) query = query.where('organization_id', '=', filter.organizationId);
  if (filter.patientId !== undefined) query = query.where('patient_id', '=', filter.patientId);
  if (filter.userId !== undefined) {
    const userId = filter.userId;
    query = query.where((eb) => eb.or([eb('user_id', '=', userId), eb('target_user_id', '=', userId)]));
  }
  if (filter.scid !== undefined) query = query.where('prescription_scid', '=', filter.scid);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.since !== undefined) query = query.where('recorded_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('recorded_at', '<', filter.until);
  if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
  const rows = await query.orderBy('seq', 'desc').limit(limit).execute();
  return rows.map(withNumericSeq);
}

/** Entries recorded in [since, until), in seq order, after `afterSeq`. */
export async function findAuditEntriesInWindow(db: Db, window: { since?: string; until?: string }, afterSeq: number, limit: number): Promise<StoredAuditEntry[]> {
  let query = db.selectFrom('audit_entries').selectAll().where('seq', '>', afterSeq);
  if (window.since !== undefined) query = query.where('recorded_at', '>=', window.since);
  if (window.until !== undefined) query = query.where('recorded_at', '<', window.until);
  const rows = await query.orderBy('seq').limit(limit).execute();
  return rows.map(withNumericSeq);
}

/** The first entry recorded at or after `horizon`: retention keeps it and every entry after it. */
export async function findFirstAuditEntryFrom(db: Db, horizon: string): Promise<ChainPoint | undefined> {
  const row = await db.selectFrom('audit_entries').select(['seq', 'hash']).where('recorded_at', '>=', horizon).orderBy('seq').limit(1).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
}

/**
 * Retention only: removes entries up to `through` (at most `batch` of them, oldest first) and
 * moves the anchor there, so the chain's walk starts at the first entry kept. Returns how many
 * went and the new anchor (undefined when nothing was there to remove).
 */
export async function deleteAuditEntriesThrough(trx: Db, through: number, fromSeq: number, batch: number): Promise<{ count: number; anchor: ChainPoint | undefined }> {
  const last = Math.min(through, fromSeq + batch - 1);
  const lastRemoved = await trx.selectFrom('audit_entries').select(['seq', 'hash']).where('seq', '=', last).executeTakeFirst();
  const deleted = await trx.deleteFrom('audit_entries').where('seq', '<=', last).executeTakeFirst();
  if (lastRemoved) await trx.updateTable('audit_chain').set({ anchor_seq: last, anchor_hash: lastRemoved.hash }).where('id', '=', 1).execute();
  return { count: Number(deleted.numDeletedRows), anchor: lastRemoved ? { seq: last, hash: lastRemoved.hash } : undefined };
}

/** The entry at `seq`, if it is stored. */
export async function findAuditChainPoint(db: Db, seq: number): Promise<ChainPoint | undefined> {
  const row = await db.selectFrom('audit_entries').select(['seq', 'hash']).where('seq', '=', seq).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
}

function withNumericSeq(row: StoredAuditEntry): StoredAuditEntry {
  return typeof row.seq === 'number' ? row : { ...row, seq: Number(row.seq) };
}
