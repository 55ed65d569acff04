// `importPbsSchedule` over the published format: a folder or the zip, items folded by PBS code
// with their restrictions and program, the same schedule twice changing nothing, a new
// schedule replacing the old in one transaction (readers see the old one until it commits), and
// a malformed file refused naming the file, line and column, with nothing changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFeatures } from '../../src/features.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { TEST_DATABASE_URL } from '../test-app.ts';
import { describeCurrentSchedule, findPbsItem, importPbsSchedule, PbsImportError, searchMedicines } from '../../src/medicines/index.ts';
import { useTestApp } from '../given.ts';
import { editLine, givenEditedSchedule, SCHEDULE_3963, SCHEDULE_3963_ZIP, SCHEDULE_3964 } from './medicines-given.ts';

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
