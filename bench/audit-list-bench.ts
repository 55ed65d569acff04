// `npm run bench -- audit-list [--entries N]`: "who touched this patient" on a trail of a million
// entries. The entries are built as erx chains them (chainEntries, under the data directory's
// key) and inserted in bulk, then `erx audit list --patient X` is timed: the service call
// in-process (median of 9) and the command as an operator runs it (a separate process,
// median of 3, start-up included, beside `erx migrate`, which only starts and opens the database). The query plan is printed to show the index is used.
// SQLite, or PostgreSQL when DATABASE_URL is set; the database is removed afterwards.
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/platform/db/database-schema.ts';
import { listAuditEntries, verifyAuditChain } from '../src/audit/index.ts';
import { chainEntries, GENESIS_HASH } from '../src/audit/audit-chain.ts';
import { loadConfig } from '../src/config.ts';
import { buildFeatures } from '../src/features.ts';
import { assembleDeps, closeDeps } from '../src/runtime.ts';
import { prepareApiEnvironment } from './bench-environment.ts';

/** Entries built and inserted per transaction. */
const CHUNK = 10_000;
/** Rows per INSERT statement: 17 columns stay under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 500;
const PATIENTS = 100_000;
const ORGANIZATIONS = 1_000;
const ACTIONS = ['patient.read', 'patient.list', 'prescription.read', 'patient.update', 'hi.ihi_search', 'prescription.create'] as const;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The n-th synthetic entry: patients and organizations spread evenly, one minute apart from 2026-01-01. */
function syntheticEntry(n: number) {
  const patient = (n * 7919) % PATIENTS;
  return {
    recorded_at: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
    action: ACTIONS[n % ACTIONS.length]!,
    outcome: 'success' as const,
    actor_kind: 'user' as const,
    partner_id: 'bench-pms',
    organization_id: `org-${patient % ORGANIZATIONS}`,
    user_id: `user-${n % 5_000}`,
    hpio: '8003624166667003',
    patient_id: `patient-${patient}`,
    request_id: `req_bench_${n}`,
    client_address: '203.0.113.9',
  };
}

function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.resolve('bin/erx.js'), ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error) =>
      error ? reject(error) : resolve(performance.now() - started),
    );
  });
}

export async function runAuditListBench(entries: number): Promise<string> {
  const environment = await prepareApiEnvironment(0);
  const deps = await assembleDeps(loadConfig(environment.env));
  try {
    const features = buildFeatures(deps);
    const db = deps.database;
    const dialect = environment.database.dialect;
    log(`bench audit-list: ${entries.toLocaleString('en')} entries on ${dialect}`);
    const insertStarted = performance.now();
    let head = { seq: 0, hash: GENESIS_HASH };
    for (let from = 0; from < entries; from += CHUNK) {
      const batch = Array.from({ length: Math.min(CHUNK, entries - from) }, (_, i) => syntheticEntry(from + i + 1));
      const chained = chainEntries(features.audit.chainKey, head, batch);
      head = { seq: chained.at(-1)!.seq, hash: chained.at(-1)!.hash };
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < chained.length; start += ROWS_PER_STATEMENT) {
          await trx.insertInto('audit_entries').values(chained.slice(start, start + ROWS_PER_STATEMENT)).execute();
        }
        await trx.updateTable('audit_chain').set({ last_seq: head.seq, last_hash: head.hash }).where('id', '=', 1).execute();
      });
      if ((from / CHUNK) % 10 === 9) process.stdout.write(`\r  inserted ${(from + CHUNK).toLocaleString('en')}`);
    }
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    log(`\r  inserted ${entries.toLocaleString('en')} entries in ${insertSeconds.toFixed(1)} s (${Math.round(entries / insertSeconds).toLocaleString('en')}/s)`);
    await sql`ANALYZE`.execute(db);

    const patient = syntheticEntry(entries - 3).patient_id;
    const plan = await explainPatientQuery(db, dialect, patient);
    log(`  plan: ${plan}`);
    const serviceMs: number[] = [];
    let found = 0;
    for (let run = 0; run < 9; run += 1) {
      const started = performance.now();
      found = (await listAuditEntries(features.audit, { patient })).length;
      serviceMs.push(performance.now() - started);
    }
    const commandMs: number[] = [];
    const startMs: number[] = [];
    for (let run = 0; run < 3; run += 1) {
      commandMs.push(await runCli(environment.env, ['audit', 'list', '--patient', patient, '--json']));
      // What any command costs before its query: start, open the database, check its migrations.
      startMs.push(await runCli(environment.env, ['migrate', '--json']));
    }
    const verifyStarted = performance.now();
    const verified = await verifyAuditChain(features.audit);
    const verifySeconds = (performance.now() - verifyStarted) / 1000;
    if (!verified.intact) throw new Error(`the bench's chain does not verify: ${verified.broken?.message}`);
    return [
      `bench audit-list (${dialect}, ${entries.toLocaleString('en')} entries): list --patient (${found} entries)`,
      `service call median ${median(serviceMs).toFixed(1)} ms (min ${Math.min(...serviceMs).toFixed(1)}, max ${Math.max(...serviceMs).toFixed(1)});`,
      `erx audit list command median ${Math.round(median(commandMs))} ms incl. process start (erx migrate, which starts and opens the database only: ${Math.round(median(startMs))} ms);`,
      `verify of the whole chain ${verifySeconds.toFixed(1)} s`,
    ].join(' ');
  } finally {
    await closeDeps(deps);
    await environment.remove();
  }
}

async function explainPatientQuery(db: Kysely<Database>, dialect: string, patient: string): Promise<string> {
  const query = sql`SELECT * FROM audit_entries WHERE patient_id = ${patient} ORDER BY seq DESC LIMIT 100`;
  if (dialect === 'sqlite') {
    const rows = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${query}`.execute(db);
    return rows.rows.map((row) => row.detail).join('; ');
  }
  const rows = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${query}`.execute(db);
  return rows.rows.map((row) => row['QUERY PLAN'].trim()).join('; ');
}
