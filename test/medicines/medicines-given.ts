// Schedules for the medicines tests: the fixtures (real-format extracts of two schedules, 3963
// and 3964, and 3963 as the published zip) and copies of them with one line changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

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

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** The unpacked size the zip claims (default: the true one). */
  declaredSize?: number;
}

/** The CRC, packed and unpacked sizes and the name's length, as both headers of an entry hold them from `at` on. */
function writeSizes(header: Buffer, at: number, sizes: { crc: number; packed: number; unpacked: number }, nameLength: number): void {
  header.writeUInt32LE(sizes.crc, at);
  header.writeUInt32LE(sizes.packed, at + 4);
  header.writeUInt32LE(sizes.unpacked, at + 8);
  header.writeUInt16LE(nameLength, at + 12);
}

/**
 * Writes a zip of deflated `entries`, whose directory may claim sizes other than the true ones:
 * a zip bomb claiming what it unpacks to, or one that lies about it.
 */
export function writeZip(file: string, entries: ZipEntry[]): void {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const packed = zlib.deflateRawSync(entry.data, { level: 9 });
    const sizes = { crc: zlib.crc32(entry.data), packed: packed.length, unpacked: entry.declaredSize ?? entry.data.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    writeSizes(local, 14, sizes, name.length);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    writeSizes(central, 16, sizes, name.length);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  fs.writeFileSync(file, Buffer.concat([...locals, directory, end]));
}

/** A schedule's tables as zip entries under tables_as_csv/, each passed through `edit` (default unchanged). */
export function scheduleEntries(schedule: string, edit: (entry: ZipEntry) => ZipEntry = (entry) => entry): ZipEntry[] {
  const folder = path.join(schedule, 'tables_as_csv');
  return fs.readdirSync(folder).map((name) => edit({ name: `tables_as_csv/${name}`, data: fs.readFileSync(path.join(folder, name)) }));
}
