// Reads one table of a published PBS schedule as a stream of rows: UTF-8 with a byte-order
// mark, one header row of lower-case names, quoted values, the literal `null` for an empty
// value. Columns are found by their header name, never by position (items.csv has about 75 and
// they move between releases); a missing column, a broken row or a bad value stops the import
// naming the file, the line and the column.
import { parse } from 'csv-parse';
import type { PbsSource } from './pbs-import-source.ts';
import { PbsImportError } from './pbs-import-error.ts';
import type { PbsImportLimits } from './pbs-import-limits.ts';

/** One row of a table, its values read by column name, each fault reported where it is. */
export class PbsRow {
  constructor(
    private readonly file: string,
    readonly line: number,
    private readonly values: Readonly<Record<string, string>>,
  ) {}

  fault(column: string, problem: string): PbsImportError {
    return new PbsImportError(this.file, problem, this.line, column);
  }

  /** The value, or null when it is empty or the literal `null`. */
  optional(column: string): string | null {
    const value = this.values[column]?.trim();
    return value === undefined || value === '' || value === 'null' ? null : value;
  }

  required(column: string): string {
    const value = this.optional(column);
    if (value === null) throw this.fault(column, 'has no value');
    return value;
  }

  /** A whole number of at least 0. */
  count(column: string): number {
    const value = this.required(column);
    if (!/^\d{1,9}$/.test(value)) throw this.fault(column, `expected a whole number, found "${value.slice(0, 40)}"`);
    return Number(value);
  }
}

export interface TableRead {
  /** File name (`items.csv`). */
  name: string;
  /** Columns the table must have. */
  columns: readonly string[];
  /** The bounds past which the table is refused (pbs-import-limits.ts). */
  limits: Pick<PbsImportLimits, 'maxRecordChars' | 'maxRowsPerTable'>;
  /** Rows read so far, every 5,000 and at the end. */
  onProgress?: ((rows: number) => void) | undefined;
}

const PROGRESS_EVERY_ROWS = 5_000;

/** Calls `onRow` for each data row of the table (a missing table is refused). Returns the row count. */
export async function readPbsTable(source: PbsSource, table: TableRead, onRow: (row: PbsRow) => void): Promise<number> {
  const file = source.paths.get(table.name);
  if (file === undefined) throw new PbsImportError(table.name, 'is missing from the schedule (expected under tables_as_csv/)');
  const { maxRecordChars, maxRowsPerTable } = table.limits;
  const input = await source.open(table.name);
  const parser = input.pipe(
    parse({ bom: true, columns: (header: string[]) => checkHeader(file, header, table.columns), info: true, skip_empty_lines: true, max_record_size: maxRecordChars }),
  );
  // pipe() does not pass the input's failure on (a zip entry that will not inflate, the byte budget spent).
  input.on('error', (error) => parser.destroy(error instanceof PbsImportError ? error : new PbsImportError(file, `cannot be unpacked (${error.message})`)));
  let rows = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      if (rows === maxRowsPerTable) throw new PbsImportError(file, `has more than ${maxRowsPerTable.toLocaleString('en-AU')} rows, more than any PBS schedule: refused`, info.lines);
      onRow(new PbsRow(file, info.lines, record));
      rows += 1;
      if (rows % PROGRESS_EVERY_ROWS === 0) table.onProgress?.(rows);
    }
  } catch (error) {
    input.destroy();
    throw tableFault(file, error, maxRecordChars);
  }
  table.onProgress?.(rows);
  return rows;
}

function tableFault(file: string, error: unknown, maxRecordChars: number): PbsImportError {
  if (error instanceof PbsImportError) return error;
  const { code, lines, message } = error as { code?: string; lines?: number; message: string };
  if (code === 'CSV_MAX_RECORD_SIZE') return new PbsImportError(file, `has a record longer than ${maxRecordChars.toLocaleString('en-AU')} characters, more than any PBS schedule's: refused`, lines);
  return new PbsImportError(file, `is not a valid CSV table (${message.replace(/^Invalid Record Length: |^Invalid Opening Quote: /, '').replace(/,? ?(on|at) line \d+.*$/, '')})`, lines);
}

function checkHeader(file: string, header: string[], required: readonly string[]): string[] {
  const names = header.map((name) => name.trim().toLowerCase());
  const missing = required.filter((column) => !names.includes(column));
  if (missing.length > 0) throw new PbsImportError(file, `the header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, 1);
  return names;
}
