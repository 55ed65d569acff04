// `npm run bench -- medicines [--codes N]`: the PBS catalogue at full size. A synthetic schedule
// in the published format (N PBS codes, default 6,000, about two brands each, and about 16
// restriction links per code: ~12k item rows, ~100k relationship rows) is written to the data
// directory (never committed), imported as `erx medicines import` does (timed in process, and
// again unchanged), and then the prescriber's search is timed over a mix of searches (short
// prefixes, whole names, name and strength, brands, codes). Target: p95 of the search well under
// 100 ms. SQLite, or PostgreSQL when DATABASE_URL is set; everything is removed afterwards.
import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { buildFeatures } from '../src/features.ts';
import { importPbsSchedule, searchMedicines } from '../src/medicines/index.ts';
import { assembleDeps, closeDeps } from '../src/runtime.ts';
import { prepareApiEnvironment } from './bench-environment.ts';

/** What the search's p95 must stay under, in ms. */
export const MEDICINE_SEARCH_P95_TARGET_MS = 100;
const SEARCH_RUNS = 400;
const LINKS_PER_CODE = 16;

const STEMS = ['amo', 'ator', 'cef', 'dox', 'met', 'per', 'ser', 'oxy', 'pre', 'ros', 'val', 'lis', 'can', 'esc', 'flu', 'pan', 'ome', 'tra', 'gab', 'war', 'alp', 'bis', 'cit', 'dil', 'ena', 'fur', 'hyd', 'ibu', 'lev', 'mor'];
const ENDINGS = ['xicillin', 'vastatin', 'alexin', 'ycycline', 'formin', 'indopril', 'traline', 'codone', 'gabalin', 'sartan', 'oprazole', 'olol', 'dipine', 'semide', 'zepam', 'mab', 'tinib', 'floxacin', 'thiazide', 'profen'];
const FORMS = ['Tablet', 'Capsule', 'Injection', 'Oral liquid', 'Tablet (modified release)', 'Cream', 'Pressurised inhalation', 'Eye drops'];
const BENEFITS = ['U', 'U', 'R', 'R', 'A', 'S'];

const quote = (values: Array<string | number>) => values.map((value) => `"${String(value).replace(/"/g, '""')}"`).join(',');

function codeOf(n: number): string {
  return `${10000 + n}${String.fromCharCode(65 + (n % 26))}`;
}

function drugOf(n: number): string {
  return `${STEMS[n % STEMS.length]}${ENDINGS[Math.floor(n / STEMS.length) % ENDINGS.length]}`.replace(/^./, (c) => c.toUpperCase());
}

/** Writes the synthetic schedule's tables; returns the folder. */
async function writeSyntheticSchedule(root: string, codes: number): Promise<string> {
  const folder = path.join(root, 'synthetic-pbs', 'tables_as_csv');
  await fs.mkdir(folder, { recursive: true });
  const bom = '\ufeff';
  await fs.writeFile(path.join(folder, 'schedules.csv'), `${bom}${quote(['schedule_code', 'effective_date'])}\r\n${quote(['9001', '2026-06-01'])}\r\n`);
  await fs.writeFile(path.join(folder, 'programs.csv'), `${bom}${quote(['program_code', 'program_title'])}\r\n${quote(['GE', 'General'])}\r\n${quote(['R1', 'Repatriation Pharmaceutical Benefits Scheme'])}\r\n`);
  const items = [quote(['schedule_code', 'pbs_code', 'benefit_type_code', 'program_code', 'li_item_id', 'drug_name', 'li_form', 'brand_name', 'maximum_quantity_units', 'number_of_repeats', 'pack_size', 'caution_indicator'])];
  const restrictions = [quote(['res_code', 'authority_method', 'treatment_of_code', 'li_html_text', 'schedule_code'])];
  const links = [quote(['res_code', 'pbs_code', 'benefit_type_code', 'restriction_indicator', 'schedule_code'])];
  const restrictionCount = Math.max(100, Math.floor(codes / 3));
  for (let r = 0; r < restrictionCount; r += 1) {
    const method = ['RESTRICTED', 'AUTHORITY_REQUIRED', 'STREAMLINED'][r % 3]!;
    restrictions.push(quote([`R${r}`, method, method === 'STREAMLINED' ? String(4000 + r) : 'null', `<p>Condition ${r}</p><p>Patient must meet criterion ${r} &amp; be treated by a specialist.</p>`, '9001']));
  }
  for (let n = 0; n < codes; n += 1) {
    const code = codeOf(n);
    const benefit = BENEFITS[n % BENEFITS.length]!;
    const form = `${FORMS[n % FORMS.length]} ${5 * (1 + (n % 40))} mg`;
    for (let b = 0; b < 1 + (n % 3); b += 1) {
      items.push(quote(['9001', code, benefit, n % 50 === 0 ? 'R1' : 'GE', `${code}_${b}`, drugOf(n), form, `${drugOf(n + b * 7).slice(0, 5)}brand${b}`, 10 + (n % 90), n % 6, 30, 'N']));
    }
    for (let l = 0; l < LINKS_PER_CODE; l += 1) links.push(quote([`R${(n * 7 + l) % restrictionCount}`, code, benefit, benefit === 'U' || l > 0 ? 'N' : 'Y', '9001']));
  }
  await fs.writeFile(path.join(folder, 'items.csv'), `${bom}${items.join('\r\n')}\r\n`);
  await fs.writeFile(path.join(folder, 'restrictions.csv'), `${bom}${restrictions.join('\r\n')}\r\n`);
  await fs.writeFile(path.join(folder, 'item-restriction-relationships.csv'), `${bom}${links.join('\r\n')}\r\n`);
  return path.dirname(folder);
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

function searchesOf(codes: number): string[] {
  return [
    'a', 'm', 'ox', 'amo', 'Metformin', 'ser 50', 'tablet 10', 'capsule', 'inj', 'cream 5', 'oral liquid', 'amoxicillin 25',
    'brand1', codeOf(Math.floor(codes / 2)).slice(0, 4), codeOf(codes - 1), 'zz', 'vastatin', 'ros 200 tab',
  ];
}

export async function runMedicinesBench(codes: number): Promise<{ line: string; passed: boolean }> {
  const environment = await prepareApiEnvironment(0);
  const deps = await assembleDeps(loadConfig(environment.env));
  try {
    const { medicines } = buildFeatures(deps);
    const folder = await writeSyntheticSchedule(String(environment.env.ERX_DATA_DIR), codes);
    const importStarted = performance.now();
    const imported = await importPbsSchedule(medicines, folder);
    const importSeconds = (performance.now() - importStarted) / 1000;
    const againStarted = performance.now();
    const again = await importPbsSchedule(medicines, folder);
    const againSeconds = (performance.now() - againStarted) / 1000;
    if (again.changed) throw new Error('the same schedule imported twice changed the catalogue');
    await sql`ANALYZE`.execute(deps.database);
    const searcher = { organizationId: '00000000-0000-4000-8000-000000000000', userId: '00000000-0000-4000-8000-000000000000' };
    const searches = searchesOf(codes);
    const timings: number[] = [];
    const byKind = new Map<string, number[]>();
    let listed = 0;
    for (let run = 0; run < SEARCH_RUNS; run += 1) {
      const started = performance.now();
      const found = await searchMedicines(medicines, searcher, { search: searches[run % searches.length]!, limit: 50 });
      timings.push(performance.now() - started);
      byKind.set(searches[run % searches.length]!, [...(byKind.get(searches[run % searches.length]!) ?? []), timings.at(-1)!]);
      listed += found.pbsItems.length;
    }
    const p95 = percentile(timings, 0.95);
    const [slowest, slowestTimes] = [...byKind].sort((a, b) => percentile(b[1], 0.5) - percentile(a[1], 0.5))[0]!;
    const passed = p95 < MEDICINE_SEARCH_P95_TARGET_MS;
    const line = [
      `bench medicines (${environment.database.dialect}, ${imported.item_count.toLocaleString('en')} PBS codes):`,
      `import ${importSeconds.toFixed(1)} s, again unchanged ${againSeconds.toFixed(1)} s;`,
      `search over ${searches.length} kinds x ${SEARCH_RUNS / searches.length | 0}: p50 ${percentile(timings, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...timings).toFixed(1)} ms`,
      `(slowest kind "${slowest}": median ${percentile(slowestTimes, 0.5).toFixed(1)} ms; the first search, cold, ${timings[0]!.toFixed(1)} ms;`,
      `${(listed / SEARCH_RUNS).toFixed(1)} items listed on average; target p95 < ${MEDICINE_SEARCH_P95_TARGET_MS} ms: ${passed ? 'met' : 'MISSED'})`,
    ].join(' ');
    return { line, passed };
  } finally {
    await closeDeps(deps);
    await environment.remove();
  }
}
