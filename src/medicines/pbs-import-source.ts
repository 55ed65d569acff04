// Where a published PBS schedule is read from: the monthly zip (`YYYY-MM-01-PBS-API-CSV-files.zip`)
// or a folder it was unpacked into. Either way the tables are CSV files found by their name,
// under `tables_as_csv/` or at the top; each is read as a stream, never whole.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { PbsImportError } from './pbs-import-error.ts';

export interface PbsSource {
  /** Each table's path as published (e.g. `tables_as_csv/items.csv`), by file name; absent tables are missing. */
  paths: ReadonlyMap<string, string>;
  open(fileName: string): Promise<Readable>;
  close(): Promise<void>;
}

const CSV_FOLDER = 'tables_as_csv';

/** Opens `location`: a .zip file or a folder (holding `tables_as_csv/` or the CSV files). */
export async function openPbsSource(location: string): Promise<PbsSource> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(location);
  } catch {
    throw new PbsImportError(location, `cannot be read: no such file or folder`);
  }
  return stat.isDirectory() ? openFolder(location) : openZip(location);
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

async function openZip(file: string): Promise<PbsSource> {
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
  return {
    paths,
    open: (fileName) =>
      new Promise<Readable>((resolve, reject) => {
        zip.openReadStream(entries.get(fileName)!, (error, stream) => (error ? reject(error) : resolve(stream)));
      }),
    close: async () => zip.close(),
  };
}
