// erx medicines import <path> [--json]: loads a published PBS schedule (the monthly
// `YYYY-MM-01-PBS-API-CSV-files.zip`, or the folder it was unpacked into) as the medicines
// catalogue, in place of the current one. A terminal sees each table's rows counted on stderr;
// stdout carries the schedule imported (JSON with --json). A refused file exits 1 naming the
// file, line and column.
import type { Command } from 'commander';
import { importPbsSchedule, type PbsImportResult } from '../medicines/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

function describeImport(result: PbsImportResult): string[] {
  const schedule = `PBS schedule ${result.schedule_code} (effective ${result.effective_date}), ${result.item_count} items`;
  const lines = result.changed
    ? [`imported ${schedule}${result.previous_schedule_code ? `, replacing schedule ${result.previous_schedule_code}` : ''}`]
    : [`unchanged: the catalogue already holds ${schedule}`];
  if (result.unmatched_relationships > 0) lines.push(`${result.unmatched_relationships} restriction links named a PBS code or restriction the schedule lacks and were left out`);
  return lines;
}

export function registerMedicinesCommands(program: Command): void {
  const medicines = program.command('medicines').description('the medicines catalogue (the PBS Schedule)');
  addJsonOption(medicines.command('import').argument('<path>', 'the PBS API CSV zip, or a folder holding its tables_as_csv/'))
    .description("load a published PBS schedule as the medicines catalogue, replacing the current one in one transaction (the same schedule again changes nothing)")
    .action(async (location: string, options: CommandOptions) => {
      const terminal = process.stderr.isTTY === true;
      const result = await withFeatures(({ medicines }) =>
        importPbsSchedule(medicines, location, {
          onProgress: terminal ? (table, rows) => process.stderr.write(`\rmedicines import: ${table === 'writing' ? `writing ${rows} items` : `${table} ${rows} rows`}\x1b[K`) : undefined,
        }),
      );
      if (terminal) process.stderr.write('\n');
      printResult(options, result, describeImport(result));
    });
}
