// `importPbsSchedule` over the published format: a folder or the zip, items folded by PBS code
// with their restrictions and program, the same schedule twice changing nothing, a new
// schedule replacing the old in one transaction (readers see the old one until it commits), and
// a malformed file refused naming the file, line and column, with nothing changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFeatures } from '../../src/features.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { TEST_DATABASE_URL } from '../test-app.ts';
import { describeCurrentSchedule, findPbsItem, importPbsSchedule, PbsImportError, searchMedicines } from '../../src/medicines/index.ts';
import { useTestApp } from '../given.ts';
import { editLine, givenEditedSchedule, scheduleEntries, SCHEDULE_3963, SCHEDULE_3963_ZIP, SCHEDULE_3964, writeZip, type ZipEntry } from './medicines-given.ts';

const { t } = useTestApp({});
const medicines = () => t.features.medicines;
const auditCount = async () => (await t.deps.database.selectFrom('audit_entries').select('action').where('action', '=', 'admin.pbs_schedule_import').execute()).length;

async function importRefusal(location: string): Promise<PbsImportError> {
  const error = await importPbsSchedule(medicines(), location).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PbsImportError);
  return error as PbsImportError;
}

describe('importing a PBS schedule', () => {
  it('reads the folder: one item per PBS code, brands folded in, benefit types, restrictions, streamlined codes and the RPBS program', async () => {
    const progress: string[] = [];
    const result = await importPbsSchedule(medicines(), SCHEDULE_3963, { onProgress: (table) => progress.push(table) });
    expect(result).toEqual({ schedule_code: '3963', effective_date: '2026-04-01', item_count: 5, changed: true, previous_schedule_code: null, unmatched_relationships: 0 });
    expect(progress).toEqual(expect.arrayContaining(['schedules.csv', 'programs.csv', 'items.csv', 'restrictions.csv', 'item-restriction-relationships.csv', 'writing']));
    expect(await describeCurrentSchedule(medicines())).toMatchObject({ schedule_code: '3963', effective_date: '2026-04-01', item_count: 5 });
    expect(await findPbsItem(medicines(), '2622b')).toEqual({
      pbs_code: '2622B', drug_name: 'Amoxicillin', brand_names: ['APO-Amoxicillin', 'Amoxil'], form: 'Capsule', strength: '500 mg (as trihydrate)',
      benefit_type: 'unrestricted', program_code: 'GE', rpbs_only: false, max_quantity: 20, max_repeats: 0, restriction_text: null, streamlined_codes: [], schedule_code: '3963',
    });
    const sertraline = await findPbsItem(medicines(), '2236Q');
    expect(sertraline).toMatchObject({ benefit_type: 'restricted', restriction_text: 'Major depressive disorders', max_quantity: 30, max_repeats: 5 });
    const oxycodone = await findPbsItem(medicines(), '10754J');
    expect(oxycodone).toMatchObject({ benefit_type: 'authority_required', form: 'Tablet (modified release)', strength: '10 mg', streamlined_codes: [] });
    expect(oxycodone!.restriction_text).toBe('Chronic severe disabling pain\nPatient must be unable to use non-opioid analgesics & the pain must be opioid-responsive.');
    // The note (restriction_indicator N) is not a restriction, and its code is not streamlined.
    const apixaban = await findPbsItem(medicines(), '11693L');
    expect(apixaban).toMatchObject({ benefit_type: 'streamlined', streamlined_codes: ['9563', '9564'] });
    expect(apixaban!.restriction_text).not.toContain('shared care');
    expect(await findPbsItem(medicines(), '4391T')).toMatchObject({ program_code: 'R1', rpbs_only: true });
    expect(await findPbsItem(medicines(), '9999Z')).toBeUndefined();
    expect(await findPbsItem(medicines(), "' or 1=1 --")).toBeUndefined();
  });

  it('reads the published zip to the same items, and importing the same schedule again changes nothing', async () => {
    const before = await describeCurrentSchedule(medicines());
    const audited = await auditCount();
    const again = await importPbsSchedule(medicines(), SCHEDULE_3963_ZIP);
    expect(again).toMatchObject({ schedule_code: '3963', item_count: 5, changed: false, previous_schedule_code: '3963' });
    expect(await describeCurrentSchedule(medicines())).toEqual(before);
    expect(await auditCount()).toBe(audited);
  });

  it('replaces the schedule in one transaction: readers see the old one until it commits, and a failed write leaves it whole', async () => {
    t.clock.advanceSeconds(60);
    await expect(importPbsSchedule(medicines(), SCHEDULE_3964, { whileWriting: () => Promise.reject(new Error('the write broke off')) })).rejects.toThrow('the write broke off');
    expect(await describeCurrentSchedule(medicines())).toMatchObject({ schedule_code: '3963' });
    expect(await findPbsItem(medicines(), '2622B')).toBeDefined();
    const audited = await auditCount();
    const result = await importPbsSchedule(medicines(), SCHEDULE_3964);
    expect(result).toMatchObject({ schedule_code: '3964', effective_date: '2026-05-01', item_count: 5, changed: true, previous_schedule_code: '3963' });
    expect(await findPbsItem(medicines(), '2622B')).toBeUndefined();
    expect(await findPbsItem(medicines(), '1234X')).toMatchObject({ drug_name: 'Cefalexin', schedule_code: '3964' });
    expect(await auditCount()).toBe(audited + 1);
    const schedules = await t.deps.database.selectFrom('pbs_schedules').select(['schedule_code', 'current']).orderBy('schedule_code').execute();
    expect(schedules).toEqual([{ schedule_code: '3963', current: 0 }, { schedule_code: '3964', current: 1 }]);
  });

  // On SQLite a reader connection exists for a database file (a private in-memory database has
  // none, and its reads wait for the writer): the service's own, as `erx serve` opens it.
  it('keeps answering searches while an import writes, from the schedule before it', async () => {
    const folder = TEST_DATABASE_URL ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'erx-pbs-db-'));
    const database = folder ? await openDatabase({ sqliteFile: path.join(folder, 'erx.sqlite') }) : undefined;
    if (database) await migrateToLatest(database);
    const own = database ? buildFeatures({ ...t.deps, database }).medicines : medicines();
    try {
      await importPbsSchedule(own, SCHEDULE_3963);
      const searcher = { organizationId: '00000000-0000-4000-8000-000000000000', userId: '00000000-0000-4000-8000-000000000000' };
      const seenMeanwhile: unknown[] = [];
      await importPbsSchedule(own, SCHEDULE_3964, {
        whileWriting: async () => {
          seenMeanwhile.push((await describeCurrentSchedule(own))?.schedule_code);
          seenMeanwhile.push((await searchMedicines(own, searcher, { search: 'AMOXI', limit: 10 })).pbsItems.map((item) => item.pbs_code));
        },
      });
      expect(seenMeanwhile).toEqual(['3963', ['2622B']]);
      expect((await searchMedicines(own, searcher, { search: 'amoxi', limit: 10 })).pbsItems).toEqual([]);
    } finally {
      await database?.close();
      if (folder) fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('a malformed schedule', () => {
  const cases: Array<{ name: string; table: string; edit: (text: string) => string; message: RegExp }> = [
    {
      name: 'a count that is not a number',
      table: 'items.csv',
      edit: editLine(3, (line) => line.replace('"20","0","1001"', '"twenty","0","1001"')),
      message: /^tables_as_csv\/items\.csv line 3, column maximum_quantity_units: expected a whole number, found "twenty"$/,
    },
    { name: 'an unknown benefit type', table: 'items.csv', edit: editLine(4, (line) => line.replace('"2236Q","R"', '"2236Q","X"')), message: /^tables_as_csv\/items\.csv line 4, column benefit_type_code: "X" is not one of U, R, A, S$/ },
    { name: 'a missing column', table: 'items.csv', edit: editLine(1, (line) => line.replace('"number_of_repeats"', '"repeats"')), message: /^tables_as_csv\/items\.csv line 1: the header lacks the column number_of_repeats$/ },
    { name: 'a required value that is null', table: 'items.csv', edit: editLine(2, (line) => line.replace('"Amoxicillin","Amoxicillin"', '"null","Amoxicillin"')), message: /^tables_as_csv\/items\.csv line 2, column drug_name: has no value$/ },
    { name: 'a row with a column too many', table: 'restrictions.csv', edit: editLine(3, (line) => `${line},"extra"`), message: /^tables_as_csv\/restrictions\.csv line 3: is not a valid CSV table/ },
    { name: 'an unclosed quote', table: 'schedules.csv', edit: (text) => text.replace('"2026-04-01"', '"2026-04-01'), message: /^tables_as_csv\/schedules\.csv line \d+: is not a valid CSV table/ },
    { name: 'no schedule row for the items', table: 'schedules.csv', edit: editLine(2, (line) => line.replace('"3963"', '"3962"')), message: /^tables_as_csv\/schedules\.csv: has no row for the items' schedule 3963$/ },
    { name: 'rows of two schedules', table: 'items.csv', edit: editLine(6, (line) => line.replace(/^"3963"/, '"3964"')), message: /^tables_as_csv\/items\.csv line 6, column schedule_code: schedule 3964 differs from the schedule of the rows before it \(3963\)$/ },
    { name: 'a bad date', table: 'schedules.csv', edit: editLine(2, (line) => line.replace('"2026-04-01"', '"1/4/2026"')), message: /^tables_as_csv\/schedules\.csv line 2, column effective_date: expected a date YYYY-MM-DD, found "1\/4\/2026"$/ },
    { name: 'a bad restriction indicator', table: 'item-restriction-relationships.csv', edit: editLine(2, (line) => line.replace('"R","Y"', '"R","maybe"')), message: /^tables_as_csv\/item-restriction-relationships\.csv line 2, column restriction_indicator: expected Y or N, found "maybe"$/ },
  ];
  for (const { name, table, edit, message } of cases) {
    it(`is refused, naming the file and line: ${name}; nothing changes`, async () => {
      const before = await describeCurrentSchedule(medicines());
      const edited = givenEditedSchedule(table, edit);
      try {
        expect((await importRefusal(edited.folder)).message).toMatch(message);
      } finally {
        edited.cleanup();
      }
      expect(await describeCurrentSchedule(medicines())).toEqual(before);
    });
  }

  it('is refused when a table is missing or the path is neither a folder nor a zip', async () => {
    const edited = givenEditedSchedule('items.csv', (text) => text);
    const fs = await import('node:fs');
    fs.rmSync(`${edited.folder}/tables_as_csv/items.csv`);
    try {
      expect((await importRefusal(edited.folder)).message).toBe('items.csv: is missing from the schedule (expected under tables_as_csv/)');
      expect((await importRefusal(`${edited.folder}/tables_as_csv/schedules.csv`)).message).toMatch(/^schedules\.csv: is neither a folder nor a readable zip file/);
      expect((await importRefusal(`${edited.folder}/nothing-here`)).message).toMatch(/nothing-here: cannot be read/);
    } finally {
      edited.cleanup();
    }
  });
});

describe('the bounds of an import (a file that is no PBS schedule, or a zip bomb)', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-pbs-bounds-'));
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));
  const zipOf = (name: string, edit: (entry: ZipEntry) => ZipEntry) => {
    const file = path.join(folder, name);
    writeZip(file, scheduleEntries(SCHEDULE_3964, edit));
    return file;
  };
  const onItems = (change: (entry: ZipEntry) => ZipEntry) => (entry: ZipEntry) => (entry.name.endsWith('/items.csv') ? change(entry) : entry);

  /** Imports schedule 3964 (in some form) over 3963 and expects the refusal, with nothing written. */
  async function expectRefusedKeeping3963(location: string, message: RegExp, limits?: NonNullable<Parameters<typeof importPbsSchedule>[2]>['limits']) {
    await importPbsSchedule(medicines(), SCHEDULE_3963);
    const before = await describeCurrentSchedule(medicines());
    const audited = await auditCount();
    const error = await importPbsSchedule(medicines(), location, { limits }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PbsImportError);
    expect((error as Error).message).toMatch(message);
    expect(await describeCurrentSchedule(medicines())).toEqual(before);
    expect(await auditCount()).toBe(audited);
  }

  it('takes the zip writeZip makes when nothing is out of bounds', async () => {
    await importPbsSchedule(medicines(), SCHEDULE_3963);
    expect(await importPbsSchedule(medicines(), zipOf('fine.zip', (entry) => entry))).toMatchObject({ schedule_code: '3964', changed: true });
  });

  it('refuses a zip whose tables claim to unpack past 1 GiB, before reading any', async () => {
    const bomb = zipOf('claims-2-gib.zip', onItems((entry) => ({ ...entry, declaredSize: 2 ** 31 })));
    await expectRefusedKeeping3963(bomb, /^claims-2-gib\.zip: its tables unpack to 2,147,\d{3},\d{3} bytes, more than the 1,073,741,824 bytes of any PBS schedule: refused \(a zip bomb\?\)$/);
  });

  it('refuses a zip entry that unpacks past the size it claims', async () => {
    const liar = zipOf('understates.zip', onItems((entry) => ({ ...entry, data: Buffer.concat([entry.data, Buffer.alloc(100_000, 0x0a)]), declaredSize: entry.data.length })));
    await expectRefusedKeeping3963(liar, /^tables_as_csv\/items\.csv: cannot be unpacked \(.*too many bytes/);
  });

  it('stops reading once the tables read pass the bound, the counting not trusting the zip', async () => {
    await expectRefusedKeeping3963(SCHEDULE_3964, /^tables_as_csv\/\S+\.csv: unpacks past 2,000 bytes of tables, more than any PBS schedule: refused/, { maxUnpackedBytes: 2_000 });
  });

  it('refuses a record longer than 1,000,000 characters', async () => {
    const long = `\r\n"11693L","${'x'.repeat(1_000_001)}"`;
    const huge = zipOf('long-record.zip', onItems((entry) => ({ ...entry, data: Buffer.concat([entry.data, Buffer.from(long)]) })));
    await expectRefusedKeeping3963(huge, /^tables_as_csv\/items\.csv( line \d+)?: has a record longer than 1,000,000 characters, more than any PBS schedule's: refused$/);
  });

  it('refuses a table with more rows than the bound', async () => {
    await expectRefusedKeeping3963(SCHEDULE_3964, /^tables_as_csv\/programs\.csv line 5: has more than 3 rows, more than any PBS schedule: refused$/, { maxRowsPerTable: 3 });
  });
});
