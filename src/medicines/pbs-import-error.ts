// A schedule erx refuses to import, saying where: the file, and the line and column when the
// fault is in a row (`tables_as_csv/items.csv line 12, column number_of_repeats: ...`).
export class PbsImportError extends Error {
  override name = 'PbsImportError';

  constructor(
    readonly file: string,
    readonly problem: string,
    readonly line?: number,
    readonly column?: string,
  ) {
    super(`${file}${line === undefined ? '' : ` line ${line}`}${column === undefined ? '' : `, column ${column}`}: ${problem}`);
  }
}
