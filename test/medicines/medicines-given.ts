// Schedules for the medicines tests: the fixtures (real-format extracts of two schedules, 3963
// and 3964, and 3963 as the published zip) and copies of them with one line changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FIXTURES = path.resolve('test/medicines/fixtures');

export const SCHEDULE_3963 = path.join(FIXTURES, 'schedule-3963');
export const SCHEDULE_3964 = path.join(FIXTURES, 'schedule-3964');
export const SCHEDULE_3963_ZIP = path.join(FIXTURES, '2026-04-01-PBS-API-CSV-files.zip');

/** A copy of schedule 3963 (removed with `cleanup`) whose `table` has `edit` applied to its text. */
export function givenEditedSchedule(table: string, edit: (text: string) => string): { folder: string; cleanup: () => void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-pbs-'));
  fs.cpSync(SCHEDULE_3963, folder, { recursive: true });
  const file = path.join(folder, 'tables_as_csv', table);
  fs.writeFileSync(file, edit(fs.readFileSync(file, 'utf8')));
  return { folder, cleanup: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/** The text with its `line`-th line (1 = the header) changed by `edit`. */
export function editLine(line: number, edit: (text: string) => string): (text: string) => string {
  return (text) => {
    const lines = text.split('\r\n');
    lines[line - 1] = edit(lines[line - 1]!);
    return lines.join('\r\n');
  };
}
