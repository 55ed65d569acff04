// A published PBS schedule read into the catalogue's items: items.csv folded by PBS code (one
// row per brand and pack), the restrictions each code carries (through
// item-restriction-relationships.csv), its program (programs.csv) and the schedule's code and
// effective date (schedules.csv). Only the columns a prescriber needs are kept.
import type { PbsSource } from './pbs-import-source.ts';
import { readPbsTable, type PbsRow, type TableRead } from './pbs-import-csv.ts';
import type { PbsImportLimits } from './pbs-import-limits.ts';
import { PbsImportError } from './pbs-import-error.ts';
import { plainTextOf } from './pbs-html-text.ts';
import type { PbsBenefitType, PbsItem } from './pbs-item.ts';

/** items.csv benefit_type_code → benefit type. */
const BENEFIT_TYPE_OF_CODE: Readonly<Record<string, PbsBenefitType>> = { U: 'unrestricted', R: 'restricted', A: 'authority_required', S: 'streamlined' };

/** The Repatriation PBS program: its items are for veterans (DVA patients) only. */
const RPBS_PROGRAM_CODE = 'R1';

/** What each table must have, by name (others are read by name when present). */
export const PBS_TABLES = {
  schedules: { name: 'schedules.csv', columns: ['schedule_code', 'effective_date'] },
  programs: { name: 'programs.csv', columns: ['program_code', 'program_title'] },
  items: { name: 'items.csv', columns: ['pbs_code', 'drug_name', 'li_form', 'brand_name', 'program_code', 'benefit_type_code', 'maximum_quantity_units', 'number_of_repeats', 'schedule_code'] },
  restrictions: { name: 'restrictions.csv', columns: ['res_code', 'authority_method', 'treatment_of_code', 'li_html_text'] },
  relationships: { name: 'item-restriction-relationships.csv', columns: ['res_code', 'pbs_code', 'restriction_indicator'] },
} as const;

export type PbsTableKey = keyof typeof PBS_TABLES;

export interface PbsScheduleRead {
  schedule_code: string;
  effective_date: string;
  items: PbsItem[];
  /** Relationship rows naming a code or restriction the schedule does not have (left out). */
  unmatched_relationships: number;
}

interface ItemDraft {
  item: PbsItem;
  brands: Set<string>;
  restrictions: string[];
}

interface Restriction {
  text: string | null;
  streamlinedCode: string | null;
}

const PBS_CODE = /^[0-9A-Z]{4,6}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** "Tablet 500 mg (as trihydrate)" → form "Tablet", strength "500 mg (as trihydrate)". */
export function splitFormAndStrength(text: string): { form: string; strength?: string } {
  const at = text.search(/\s\d/);
  if (at <= 0) return { form: text };
  return { form: text.slice(0, at).trim().replace(/,$/, ''), strength: text.slice(at).trim() };
}

function readItemRow(row: PbsRow, drafts: Map<string, ItemDraft>, programs: ReadonlyMap<string, boolean>): string {
  const pbsCode = row.required('pbs_code');
  if (!PBS_CODE.test(pbsCode)) throw row.fault('pbs_code', `"${pbsCode.slice(0, 20)}" is not a PBS code`);
  const benefitCode = row.required('benefit_type_code');
  const benefitType = BENEFIT_TYPE_OF_CODE[benefitCode];
  if (!benefitType) throw row.fault('benefit_type_code', `"${benefitCode.slice(0, 20)}" is not one of U, R, A, S`);
  const scheduleCode = row.required('schedule_code');
  const brand = row.optional('brand_name');
  const maxQuantity = row.count('maximum_quantity_units');
  const maxRepeats = row.count('number_of_repeats');
  const draft = drafts.get(pbsCode);
  if (draft) {
    if (brand) draft.brands.add(brand);
    return scheduleCode;
  }
  const programCode = row.required('program_code');
  const { form, strength } = splitFormAndStrength(row.optional('li_form') ?? row.required('schedule_form'));
  const item: PbsItem = {
    pbs_code: pbsCode,
    drug_name: row.required('drug_name'),
    brand_names: [],
    form,
    benefit_type: benefitType,
    program_code: programCode,
    rpbs_only: programs.get(programCode) ?? programCode === RPBS_PROGRAM_CODE,
    max_quantity: maxQuantity,
    max_repeats: maxRepeats,
    restriction_text: null,
    streamlined_codes: [],
    schedule_code: scheduleCode,
  };
  if (strength !== undefined) item.strength = strength;
  drafts.set(pbsCode, { item, brands: new Set(brand ? [brand] : []), restrictions: [] });
  return scheduleCode;
}

export interface ReadProgress {
  (table: string, rows: number): void;
}

type TableOf = (key: PbsTableKey) => TableRead;

async function readSchedules(source: PbsSource, tableOf: TableOf): Promise<Map<string, string>> {
  const dates = new Map<string, string>();
  await readPbsTable(source, tableOf('schedules'), (row) => {
    const date = row.required('effective_date');
    if (!ISO_DATE.test(date)) throw row.fault('effective_date', `expected a date YYYY-MM-DD, found "${date.slice(0, 20)}"`);
    dates.set(row.required('schedule_code'), date);
  });
  return dates;
}

/** Whether each program is RPBS-only: the Repatriation program (R1), by code or by title. */
async function readPrograms(source: PbsSource, tableOf: TableOf): Promise<Map<string, boolean>> {
  const programs = new Map<string, boolean>();
  if (!source.paths.has(PBS_TABLES.programs.name)) return programs;
  await readPbsTable(source, tableOf('programs'), (row) => {
    const code = row.required('program_code');
    programs.set(code, code === RPBS_PROGRAM_CODE || /repatriation/i.test(row.optional('program_title') ?? ''));
  });
  return programs;
}

async function readItems(source: PbsSource, tableOf: TableOf, programs: ReadonlyMap<string, boolean>): Promise<{ drafts: Map<string, ItemDraft>; scheduleCode: string }> {
  const drafts = new Map<string, ItemDraft>();
  let scheduleCode: string | undefined;
  await readPbsTable(source, tableOf('items'), (row) => {
    const code = readItemRow(row, drafts, programs);
    scheduleCode ??= code;
    if (code !== scheduleCode) throw row.fault('schedule_code', `schedule ${code} differs from the schedule of the rows before it (${scheduleCode})`);
  });
  if (scheduleCode === undefined) throw new PbsImportError(source.paths.get(PBS_TABLES.items.name)!, 'holds no items');
  return { drafts, scheduleCode };
}

async function readRestrictions(source: PbsSource, tableOf: TableOf): Promise<Map<string, Restriction>> {
  const restrictions = new Map<string, Restriction>();
  await readPbsTable(source, tableOf('restrictions'), (row) => {
    const html = row.optional('li_html_text') ?? row.optional('schedule_html_text');
    const streamlined = row.optional('authority_method')?.toUpperCase() === 'STREAMLINED';
    restrictions.set(row.required('res_code'), { text: html === null ? null : plainTextOf(html), streamlinedCode: streamlined ? row.optional('treatment_of_code') : null });
  });
  return restrictions;
}

/** Links each item to its restrictions (indicator Y); returns how many links matched nothing. */
async function linkRestrictions(source: PbsSource, tableOf: TableOf, drafts: ReadonlyMap<string, ItemDraft>, restrictions: ReadonlyMap<string, Restriction>): Promise<number> {
  let unmatched = 0;
  await readPbsTable(source, tableOf('relationships'), (row) => {
    const indicator = row.required('restriction_indicator');
    if (indicator !== 'Y' && indicator !== 'N') throw row.fault('restriction_indicator', `expected Y or N, found "${indicator.slice(0, 20)}"`);
    const draft = drafts.get(row.required('pbs_code'));
    const resCode = row.required('res_code');
    if (!draft || !restrictions.has(resCode)) unmatched += 1;
    else if (indicator === 'Y') draft.restrictions.push(resCode);
  });
  return unmatched;
}

/** Reads and checks every table the catalogue needs; refuses the schedule at its first fault. */
export async function readPbsSchedule(source: PbsSource, limits: PbsImportLimits, onProgress?: ReadProgress): Promise<PbsScheduleRead> {
  const tableOf: TableOf = (key) => ({ ...PBS_TABLES[key], limits, onProgress: onProgress && ((rows: number) => onProgress(PBS_TABLES[key].name, rows)) });
  const dates = await readSchedules(source, tableOf);
  const programs = await readPrograms(source, tableOf);
  const { drafts, scheduleCode } = await readItems(source, tableOf, programs);
  const effectiveDate = dates.get(scheduleCode);
  if (effectiveDate === undefined) throw new PbsImportError(source.paths.get(PBS_TABLES.schedules.name)!, `has no row for the items' schedule ${scheduleCode}`);
  const restrictions = await readRestrictions(source, tableOf);
  const unmatched = await linkRestrictions(source, tableOf, drafts, restrictions);
  const items = [...drafts.values()].map((draft) => finishItem(draft, restrictions));
  return { schedule_code: scheduleCode, effective_date: effectiveDate, items, unmatched_relationships: unmatched };
}

function finishItem(draft: ItemDraft, restrictions: ReadonlyMap<string, Restriction>): PbsItem {
  const resCodes = [...new Set(draft.restrictions)].sort();
  const texts = resCodes.map((code) => restrictions.get(code)!.text).filter((text): text is string => text !== null && text !== '');
  const codes = resCodes.map((code) => restrictions.get(code)!.streamlinedCode).filter((code): code is string => code !== null);
  return {
    ...draft.item,
    brand_names: [...draft.brands].sort(),
    restriction_text: draft.item.benefit_type === 'unrestricted' || texts.length === 0 ? null : texts.join('\n\n'),
    streamlined_codes: [...new Set(codes)].sort(),
  };
}
