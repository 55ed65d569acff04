// The embedded database file, copied while the server writes to it and checked before it is
// put back. The copy uses SQLite's online backup API (better-sqlite3's db.backup()) inside one
// read transaction held on the copying connection: in WAL mode that transaction neither blocks
// the server's writers nor sees their later commits, so the copy is the database as of one
// moment, and it never restarts (the API starts over when another connection writes between
// its steps, which under a steady write load could go on forever). Unlike VACUUM INTO, which
// copies in one blocking call, it proceeds in steps, so a terminal can show progress.
import { SqliteDatabase } from './database.ts';

/** Pages per backup step: about 1 MB with SQLite's default 4 KiB pages; progress is reported after each. */
const PAGES_PER_STEP = 256;

export interface CopyProgress {
  totalPages: number;
  copiedPages: number;
}

export interface SqliteCopy {
  pages: number;
  pageSize: number;
  integrity: string;
}

/** Copies the database at `source` into the (new, empty) file `target` as of one moment, and checks the copy. */
export async function copySqliteOnline(source: string, target: string, onProgress?: (progress: CopyProgress) => void): Promise<SqliteCopy> {
  const db = new SqliteDatabase(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // The snapshot the whole copy reads: a read transaction, begun by the first read.
    db.exec('BEGIN');
    db.prepare('select count(*) from sqlite_master').get();
    const { totalPages } = await db.backup(target, {
      progress: ({ totalPages, remainingPages }) => {
        onProgress?.({ totalPages, copiedPages: totalPages - remainingPages });
        return PAGES_PER_STEP;
      },
    });
    // The driver reports before each step, not after the last.
    onProgress?.({ totalPages, copiedPages: totalPages });
    db.exec('COMMIT');
  } finally {
    db.close();
  }
  return settleCopy(target);
}

/** A copy of a WAL database is marked WAL too: made a single self-contained file (rollback journal), then checked. */
function settleCopy(file: string): SqliteCopy {
  const copy = new SqliteDatabase(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    return {
      pages: copy.pragma('page_count', { simple: true }) as number,
      pageSize: copy.pragma('page_size', { simple: true }) as number,
      integrity: String(copy.pragma('integrity_check', { simple: true })),
    };
  } finally {
    copy.close();
  }
}

export interface SqliteFileReport {
  /** SQLite's integrity_check: 'ok' or its first finding. */
  integrity: string;
  /** The names in kysely_migration, in the order they were applied; undefined when the file has no such table. */
  migrations: string[] | undefined;
}

/** One object of sqlite_master: a table, index, trigger or view, with the SQL that made it. */
export interface SqliteSchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** Whether `file` is a sound SQLite database and which migrations it records. Throws SQLITE_NOTADB when it is no SQLite database. */
export function inspectSqliteFile(file: string): SqliteFileReport {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    const table = db.prepare(`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`).get();
    const migrations = table ? (db.prepare('select name from kysely_migration order by timestamp, name').all() as Array<{ name: string }>).map((row) => row.name) : undefined;
    return { integrity, migrations };
  } finally {
    db.close();
  }
}

/**
 * Whether no other connection, in any process, has the database at `file` open. In WAL mode
 * every open connection keeps a shared lock on the file once it has read, so an exclusive
 * lock is refused while a server (or another erx command) uses it. Closing this last
 * connection checkpoints the WAL into the file and removes it.
 */
export function isSqliteFileUnused(file: string): boolean {
  const db = new SqliteDatabase(file, { fileMustExist: true, timeout: 200 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw error;
  } finally {
    db.close();
  }
}

/** The audit chain's head in the database at `file`, read only; undefined when it has no chain (or no file). */
export function readSqliteAuditHead(file: string): { seq: number; hash: string } | undefined {
  let db: InstanceType<typeof SqliteDatabase>;
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch {
    return undefined;
  }
  try {
    const table = db.prepare(`select 1 from sqlite_master where type = 'table' and name = 'audit_chain'`).get();
    const row = table ? (db.prepare('select last_seq, last_hash from audit_chain where id = 1').get() as { last_seq: number; last_hash: string } | undefined) : undefined;
    return row ? { seq: Number(row.last_seq), hash: row.last_hash } : undefined;
  } finally {
    db.close();
  }
}

/**
 * Every object of sqlite_master but SQLite's own bookkeeping tables (AUTOINCREMENT's counters,
 * ANALYZE's statistics, which come and go): what restore compares with the schema erx's
 * migrations make. Matched by exact name and type, since a schema written by hand
 * (writable_schema) can name a trigger sqlite_anything.
 */
export function readSqliteSchema(file: string): SqliteSchemaObject[] {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`select type, name, tbl_name, sql from sqlite_master where not (type = 'table' and name in ('sqlite_sequence', 'sqlite_stat1', 'sqlite_stat2', 'sqlite_stat3', 'sqlite_stat4')) order by type, name`).all() as SqliteSchemaObject[];
  } finally {
    db.close();
  }
}
