// `erx medicines import <path> [--json]`, as an operator runs it: a folder, then the same
// schedule as the published zip (unchanged), then the next schedule; a malformed file is one
// line on stderr naming the file, line and column, exit 1. Progress goes to stderr only on a
// terminal (a pseudo-terminal from util-linux `script`, where there is one).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, ERX_BIN, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from '../cli/cli-helpers.ts';
import { SANDBOX_PBS_SCHEDULE } from '../../src/medicines/index.ts';
import { editLine, givenEditedSchedule, scheduleEntries, SCHEDULE_3963, SCHEDULE_3963_ZIP, SCHEDULE_3964, writeZip } from './medicines-given.ts';
import os from 'node:os';
import path from 'node:path';

let cli: CliEnvironment;
beforeAll(() => {
  cli = createCliEnvironment();
});
afterAll(() => cli.cleanup());

const SCRIPT = '/usr/bin/script';

describe('erx medicines import', () => {
  it('imports a folder, says the same schedule again changes nothing, and replaces it with the next one', async () => {
    const first = await runErx(cli.env, ['medicines', 'import', SCHEDULE_3963]);
    expect(first).toEqual({ code: 0, stdout: 'imported PBS schedule 3963 (effective 2026-04-01), 5 items\n', stderr: '' });
    const again = await runErx(cli.env, ['medicines', 'import', SCHEDULE_3963_ZIP]);
    expect(again).toEqual({ code: 0, stdout: 'unchanged: the catalogue already holds PBS schedule 3963 (effective 2026-04-01), 5 items\n', stderr: '' });
    const next = await runErxJson(cli.env, ['medicines', 'import', SCHEDULE_3964]);
    expect(next).toEqual({ schedule_code: '3964', effective_date: '2026-05-01', item_count: 5, changed: true, previous_schedule_code: '3963', unmatched_relationships: 0 });
    const audit = await runErxJson<Array<{ action: string }>>(cli.env, ['audit', 'list']);
    expect(audit.filter((entry) => entry.action === 'admin.pbs_schedule_import')).toHaveLength(2);
  }, 60_000); // several erx processes: 17 s on a loaded 2-core machine

  it('refuses a malformed file in one line naming the file, line and column, and keeps the schedule', async () => {
    const edited = givenEditedSchedule('items.csv', editLine(5, (line) => line.replace('"30","5"', '"30","five"')));
    try {
      const refused = await runErx(cli.env, ['medicines', 'import', edited.folder, '--json']);
      expectOneLineRefusal(refused, /^erx: tables_as_csv\/items\.csv line 5, column number_of_repeats: expected a whole number, found "five"$/);
    } finally {
      edited.cleanup();
    }
    expectOneLineRefusal(await runErx(cli.env, ['medicines', 'import', '/nonexistent/schedule.zip']), /^erx: \/nonexistent\/schedule\.zip: cannot be read/);
    expect(await runErxJson(cli.env, ['medicines', 'import', SCHEDULE_3964])).toMatchObject({ schedule_code: '3964', changed: false });
  });

  it('refuses a zip bomb and an overlong record in one line each, importing nothing', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-pbs-cli-'));
    try {
      const bomb = path.join(folder, 'bomb.zip');
      writeZip(bomb, scheduleEntries(SCHEDULE_3963, (entry) => (entry.name.endsWith('/items.csv') ? { ...entry, declaredSize: 2 ** 32 - 1 } : entry)));
      expectOneLineRefusal(await runErx(cli.env, ['medicines', 'import', bomb]), /^erx: bomb\.zip: its tables unpack to [\d,]+ bytes, more than the 1,073,741,824 bytes of any PBS schedule: refused \(a zip bomb\?\)$/);
      const long = path.join(folder, 'long.zip');
      const row = Buffer.from(`\r\n"2622B","${'x'.repeat(1_000_001)}"`);
      writeZip(long, scheduleEntries(SCHEDULE_3963, (entry) => (entry.name.endsWith('/items.csv') ? { ...entry, data: Buffer.concat([entry.data, row]) } : entry)));
      expectOneLineRefusal(await runErx(cli.env, ['medicines', 'import', long, '--json']), /^erx: tables_as_csv\/items\.csv( line \d+)?: has a record longer than 1,000,000 characters, more than any PBS schedule's: refused$/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
    const audit = await runErxJson<Array<{ action: string }>>(cli.env, ['audit', 'list']);
    expect(audit.filter((entry) => entry.action === 'admin.pbs_schedule_import')).toHaveLength(2);
  });

  it('is seeded with the extract the sandbox ships when the catalogue is empty, and keeps an imported schedule', async () => {
    const fresh = createCliEnvironment();
    try {
      await runErxJson(fresh.env, ['sandbox', 'seed']);
      expect(await runErxJson(fresh.env, ['medicines', 'import', SANDBOX_PBS_SCHEDULE])).toMatchObject({ schedule_code: '3963', item_count: 32, changed: false });
      await runErxJson(fresh.env, ['medicines', 'import', SCHEDULE_3964]);
      await runErxJson(fresh.env, ['sandbox', 'seed']);
      expect(await runErxJson(fresh.env, ['medicines', 'import', SCHEDULE_3964])).toMatchObject({ changed: false });
    } finally {
      await fresh.cleanup();
    }
  }, 60_000); // five erx processes, each starting and migrating: 20 s was not enough on a loaded 2-core machine

  it.skipIf(!fs.existsSync(SCRIPT))('shows each table being read on a terminal', () => {
    const command = [process.execPath, ERX_BIN, 'medicines', 'import', SCHEDULE_3963].map((part) => `'${part}'`).join(' ');
    const output = execFileSync(SCRIPT, ['-qec', command, '/dev/null'], { env: cli.env, encoding: 'utf8' });
    expect(output).toContain('\rmedicines import: items.csv 7 rows');
    expect(output).toContain('\rmedicines import: writing 5 items');
    expect(output).toContain('imported PBS schedule 3963 (effective 2026-04-01), 5 items, replacing schedule 3964');
  });
});
