// Where a published PBS schedule is read from: the monthly zip (`YYYY-MM-01-PBS-API-CSV-files.zip`)
// or a folder it was unpacked into. Either way the tables are CSV files found by their name,
// under `tables_as_csv/` or at the top; each is read as a stream, never whole.
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { PbsImportError } from './pbs-import-error.ts';
import { describeBytes } from './pbs-import-limits.ts';

export interface PbsSource {
  /** Each table's path as published (e.g. `tables_as_csv/items.csv`), by file name; absent tables are missing. */
  paths: ReadonlyMap<string, string>;
  open(fileName: string): Promise<Readable>;
  close(): Promise<void>;
}

const CSV_FOLDER = 'tables_as_csv';

/** Opens `location`: a .zip file or a folder (holding `tables_as_csv/` or the CSV files); reads at most `maxUnpackedBytes` of CSV from it. */
export async function openPbsSource(location: string, maxUnpackedBytes: number): Promise<PbsSource> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(location);
  } catch {
    throw new PbsImportError(location, `cannot be read: no such file or folder`);
  }
  const source = stat.isDirectory() ? await openFolder(location) : await openZip(location, maxUnpackedBytes);
  return countingBytes(source, maxUnpackedBytes);
}

/** Every table's stream counted against one budget: past it, the table being read fails with the refusal. */
function countingBytes(source: PbsSource, maxUnpackedBytes: number): PbsSource {
  let read = 0;
  const counted = (fileName: string, stream: Readable): Readable => {
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        read += chunk.length;
        if (read <= maxUnpackedBytes) return done(null, chunk);
        done(new PbsImportError(source.paths.get(fileName) ?? fileName, `unpacks past ${describeBytes(maxUnpackedBytes)} of tables, more than any PBS schedule: refused (a zip bomb?)`));
      },
    });
    stream.on('error', (error) => counter.destroy(error));
    // A refused table is not read on (nor left holding the zip open).
    counter.once('close', () => stream.destroy());
    return stream.pipe(counter);
  };
  return { ...source, open: async (fileName) => counted(fileName, await source.open(fileName)) };
}

async function openFolder(folder: string): Promise<PbsSource> {
  const nested = path.join(folder, CSV_FOLDER);
  const base = fs.existsSync(nested) && fs.statSync(nested).isDirectory() ? nested : folder;
  const prefix = base === folder ? '' : `${CSV_FOLDER}/`;
  const paths = new Map<string, string>();
  for (const name of await fs.promises.readdir(base)) {
    if (name.toLowerCase().endsWith('.csv')) paths.set(name.toLowerCase(), `${prefix}${name}`);
  }
  return {
    paths,
    open: async (fileName) => fs.createReadStream(path.join(folder, paths.get(fileName)!)),
    close: async () => {},
  };
}

function openZipFile(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, zip) => (error ? reject(error) : resolve(zip)));
  });
}

/** Every entry of the zip's central directory (read only, nothing inflated yet). */
function readEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/** The zip's own word on how big its tables unpack to, before any is read (yauzl holds each entry to it while reading). */
function checkDeclaredSizes(file: string, entries: Iterable<yauzl.Entry>, maxUnpackedBytes: number): void {
  let declared = 0;
  for (const entry of entries) declared += entry.uncompressedSize;
  if (declared > maxUnpackedBytes) {
    throw new PbsImportError(path.basename(file), `its tables unpack to ${describeBytes(declared)}, more than the ${describeBytes(maxUnpackedBytes)} of any PBS schedule: refused (a zip bomb?)`);
  }
}

async function openZip(file: string, maxUnpackedBytes: number): Promise<PbsSource> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZipFile(file);
  } catch (error) {
    throw new PbsImportError(path.basename(file), `is neither a folder nor a readable zip file (${error instanceof Error ? error.message : String(error)})`);
  }
  const entries = new Map<string, yauzl.Entry>();
  const paths = new Map<string, string>();
  for (const entry of await readEntries(zip)) {
    const name = entry.fileName;
    if (name.endsWith('/') || !name.toLowerCase().endsWith('.csv')) continue;
    const parts = name.split('/');
    const fileName = parts[parts.length - 1]!.toLowerCase();
    // A table under tables_as_csv/ wins over a file of the same name elsewhere in the zip.
    if (paths.has(fileName) && !name.includes(`${CSV_FOLDER}/`)) continue;
    entries.set(fileName, entry);
    paths.set(fileName, name);
  }
  try {
    checkDeclaredSizes(file, entries.values(), maxUnpackedBytes);
  } catch (error) {
    zip.close();
    throw error;
  }
  return {
    paths,
    open: (fileName) =>
      new Promise<Readable>((resolve, reject) => {
        zip.openReadStream(entries.get(fileName)!, (error, stream) => (error ? reject(error) : resolve(stream)));
      }),
    close: async () => zip.close(),
  };
}
