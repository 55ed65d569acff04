// Imports a published PBS schedule in place of the current one: every table is read and checked
// first (nothing is written from a file erx refuses), then the items and their search words
// replace the old ones in one transaction, so a search sees the old schedule or the new one,
// never a mix (readers keep reading the old one while it runs). The same schedule imported
// again (same code, same items) changes nothing. A file past the bounds of pbs-import-limits.ts
// (record size, unpacked bytes, rows) is refused before anything is written.
import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import { auditRecords } from '../audit/index.ts';
import type { PbsItemsTable } from '../platform/db/database-schema.ts';
import type { MedicinesContext } from './medicines-service.ts';
import { findCurrentPbsSchedule, recordCurrentPbsSchedule, replacePbsItems } from './medicines-store.ts';
import { PBS_IMPORT_LIMITS, type PbsImportLimits } from './pbs-import-limits.ts';
import { openPbsSource } from './pbs-import-source.ts';
import { readPbsSchedule, type ReadProgress } from './pbs-import-tables.ts';
import type { PbsItem } from './pbs-item.ts';
import { searchWordsOf } from './search-words.ts';

export interface PbsImportResult {
  schedule_code: string;
  effective_date: string;
  item_count: number;
  /** False when the catalogue already held exactly this schedule (nothing was written). */
  changed: boolean;
  /** The schedule the catalogue held before (null on the first import). */
  previous_schedule_code: string | null;
  /** Restriction links naming a PBS code or restriction the schedule lacks (left out). */
  unmatched_relationships: number;
}

export interface PbsImportOptions {
  /** Called as each table is read (rows so far) and once before the write ('writing', items). */
  onProgress?: ReadProgress;
  /**
   * Runs inside the import's open transaction once the new schedule is written, before it
   * commits: what other readers see meanwhile is the old schedule (tests look through it).
   */
  whileWriting?: () => Promise<void>;
  /** Tighter bounds than PBS_IMPORT_LIMITS (tests, which cannot write a gigabyte to reach them). */
  limits?: Partial<PbsImportLimits>;
}

function digestOf(scheduleCode: string, effectiveDate: string, items: PbsItem[]): string {
  const hash = createHash('sha256').update(`${scheduleCode}\n${effectiveDate}\n`);
  for (const item of [...items].sort((a, b) => (a.pbs_code < b.pbs_code ? -1 : 1))) hash.update(`${JSON.stringify(item)}\n`);
  return hash.digest('hex');
}

function rowOf(item: PbsItem): Insertable<PbsItemsTable> {
  return {
    pbs_code: item.pbs_code,
    drug_name: item.drug_name,
    brand_names: JSON.stringify(item.brand_names),
    form: item.form,
    strength: item.strength ?? null,
    benefit_type: item.benefit_type,
    program_code: item.program_code,
    rpbs_only: item.rpbs_only ? 1 : 0,
    max_quantity: item.max_quantity,
    max_repeats: item.max_repeats,
    restriction_text: item.restriction_text,
    streamlined_codes: JSON.stringify(item.streamlined_codes),
    schedule_code: item.schedule_code,
  };
}

function wordRowsOf(items: PbsItem[]): Array<{ word: string; pbs_code: string }> {
  return items.flatMap((item) =>
    searchWordsOf([item.pbs_code, item.drug_name, ...item.brand_names, item.form, item.strength ?? '']).map((word) => ({ word, pbs_code: item.pbs_code })),
  );
}

/** Imports the schedule at `location` (the published zip, or a folder of its CSV tables). */
export async function importPbsSchedule(ctx: MedicinesContext, location: string, options: PbsImportOptions = {}): Promise<PbsImportResult> {
  const limits = { ...PBS_IMPORT_LIMITS, ...options.limits };
  const source = await openPbsSource(location, limits.maxUnpackedBytes);
  let read: Awaited<ReturnType<typeof readPbsSchedule>>;
  try {
    read = await readPbsSchedule(source, limits, options.onProgress);
  } finally {
    await source.close();
  }
  const digest = digestOf(read.schedule_code, read.effective_date, read.items);
  const facts = { schedule_code: read.schedule_code, effective_date: read.effective_date, item_count: read.items.length, unmatched_relationships: read.unmatched_relationships };
  const before = await findCurrentPbsSchedule(ctx.db);
  if (before?.schedule_code === read.schedule_code && before.digest === digest) return { ...facts, changed: false, previous_schedule_code: before.schedule_code };
  options.onProgress?.('writing', read.items.length);
  const previous = await ctx.unitOfWork.run(async ({ trx, record }) => {
    const current = await findCurrentPbsSchedule(trx);
    await replacePbsItems(trx, read.items.map(rowOf), wordRowsOf(read.items));
    await recordCurrentPbsSchedule(trx, { schedule_code: read.schedule_code, effective_date: read.effective_date, digest, item_count: read.items.length, imported_at: ctx.clock.now().toISOString() });
    record(auditRecords, { action: 'admin.pbs_schedule_import', detail: { subjectId: read.schedule_code, count: read.items.length } });
    await options.whileWriting?.();
    return current?.schedule_code ?? null;
  });
  return { ...facts, changed: true, previous_schedule_code: previous };
}
