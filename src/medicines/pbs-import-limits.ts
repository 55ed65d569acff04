// How much of a file `erx medicines import` reads before it refuses it as no PBS schedule: the
// import holds the schedule's items in memory before it writes them, and a zip can unpack to
// far more than it weighs (a "zip bomb"). Each bound is far above what the monthly schedule
// needs and far below what would exhaust a server; past one, the import stops with a message
// naming the file and the bound, and writes nothing (it writes only after every table is read).

export interface PbsImportLimits {
  /** Characters in one CSV record (csv-parse's max_record_size). */
  maxRecordChars: number;
  /** Bytes of CSV read across all the tables, once unpacked (declared in the zip, and counted as read). */
  maxUnpackedBytes: number;
  /** Data rows in one table. */
  maxRowsPerTable: number;
}

export const PBS_IMPORT_LIMITS: PbsImportLimits = {
  // The longest value erx reads is a restriction's HTML, a few thousand characters.
  maxRecordChars: 1_000_000,
  // erx reads five of the zip's tables; 1 GiB leaves them ample room and keeps a zip bomb from
  // holding the import for long (yauzl also refuses an entry that unpacks past its declared size).
  maxUnpackedBytes: 1024 * 1024 * 1024,
  // The longest table erx reads (item-restriction-relationships.csv) has about 100,000 rows.
  maxRowsPerTable: 2_000_000,
};

/** `bytes` as an operator reads it (1,073,741,824 bytes). */
export function describeBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-AU')} bytes`;
}
