// Retention runs the steps the features registered (features.ts), in order: each owner counts
// and deletes (or blanks) its own rows (platform/db/retention-step.ts); this feature runs the
// list in batches of at most RETENTION_BATCH_ROWS rows, each batch its own short transaction
// through the unit of work, pausing between batches, so requests running beside a large prune
// wait for one batch at most, never for the whole backlog; and it reports per step. It deletes
// no row itself. Run by `erx prune` and hourly as a background loop (retention-schedule.ts).
import { setTimeout as wait } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { KeptForEver, RetentionRows, RetentionStep } from '../platform/db/retention-step.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import type { Deps } from '../deps.ts';

/** Rows one batch deletes (or blanks) at most: one short transaction. */
export const RETENTION_BATCH_ROWS = 1_000;
/**
 * Between two batches the prune waits as long as the last batch took, and at least this many
 * milliseconds: it holds the database's writer at most half the time, and the writers of other
 * processes get a turn (on SQLite a process waiting for the write lock polls for it, sleeping up
 * to 100 ms between polls; a prune that began its next batch at once could starve it).
 */
export const RETENTION_PAUSE_MIN_MS = 25;

/** Rows per kind (the steps' kinds: webhook_events, idempotency_keys, token_message_destinations, ...). */
export type RetentionCounts = Record<string, number>;

export interface RetentionContext {
  db: Kysely<Database>;
  clock: Clock;
  unitOfWork: UnitOfWork;
  logger: Logger;
  /** The features' steps, run in this order. */
  steps: readonly RetentionStep[];
  /** The tables no step prunes, and why (what docs/operators/retention.md lists). */
  keptForEver: readonly KeptForEver[];
}

export function createRetentionContext(
  deps: Pick<Deps, 'database' | 'clock' | 'logger'>,
  parts: { unitOfWork: UnitOfWork; steps: readonly RetentionStep[]; keptForEver: readonly KeptForEver[] },
): RetentionContext {
  const names = parts.steps.map((step) => step.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new Error(`two retention steps are named ${twice}`);
  return { db: deps.database, clock: deps.clock, unitOfWork: parts.unitOfWork, logger: deps.logger, steps: parts.steps, keptForEver: parts.keptForEver };
}

/** Every kind of row the steps report, in their order. */
export function retentionKindsOf(ctx: Pick<RetentionContext, 'steps'>): string[] {
  return ctx.steps.flatMap((step) => step.kinds);
}

export interface PruneOptions {
  /** Count what would go; delete nothing. */
  dryRun?: boolean;
  /** After each batch (real runs): what it removed, and the totals so far. */
  onBatch?: (batch: { step: string; rows: RetentionRows; totals: RetentionCounts }) => void;
  /** Stops between batches (shutdown); the report says it was interrupted. */
  signal?: AbortSignal;
}

export interface StepReport {
  step: string;
  /** The setting that decides how long, if any. */
  setting: string | null;
  /** What it pruned up to (ISO times). */
  cutoffs: Record<string, string>;
  counts: RetentionCounts;
  batches: number;
  ms: number;
}

export interface PruneReport {
  dry_run: boolean;
  /** Every step's cutoffs together (ISO times by name). */
  cutoffs: Record<string, string>;
  /** Rows deleted (or, for a dry run, that would be), per kind, all steps together; response bodies and token destinations are blanked, their rows kept. */
  counts: RetentionCounts;
  /** Per step, in the order run (a step not reached before an interruption is absent). */
  steps: StepReport[];
  batches: number;
  interrupted: boolean;
}

export async function pruneExpiredRecords(ctx: RetentionContext, options: PruneOptions = {}): Promise<PruneReport> {
  const now = ctx.clock.now();
  const cutoffs = Object.assign({}, ...ctx.steps.map((step) => step.cutoffs(now))) as Record<string, string>;
  const counts: RetentionCounts = Object.fromEntries(retentionKindsOf(ctx).map((kind) => [kind, 0]));
  const report: PruneReport = { dry_run: options.dryRun === true, cutoffs, counts, steps: [], batches: 0, interrupted: false };
  for (const step of ctx.steps) {
    const started = performance.now();
    const stepReport: StepReport = { step: step.name, setting: step.setting ?? null, cutoffs: step.cutoffs(now), counts: Object.fromEntries(step.kinds.map((kind) => [kind, 0])), batches: 0, ms: 0 };
    report.steps.push(stepReport);
    if (options.dryRun) {
      addRows([stepReport.counts, report.counts], await step.count(ctx.db, now));
    } else {
      let more = true;
      while (more) {
        if (options.signal?.aborted) {
          report.interrupted = true;
          stepReport.ms = Math.round(performance.now() - started);
          return report;
        }
        const batchStarted = performance.now();
        const batch = await ctx.unitOfWork.run(({ trx }) => step.batch(trx, now, RETENTION_BATCH_ROWS));
        more = batch.more;
        report.batches += 1;
        stepReport.batches += 1;
        addRows([stepReport.counts, report.counts], batch.rows);
        options.onBatch?.({ step: step.name, rows: batch.rows, totals: { ...report.counts } });
        if (more) await pauseAfter(performance.now() - batchStarted, options.signal);
      }
    }
    stepReport.ms = Math.round(performance.now() - started);
  }
  return report;
}

/** Resolves after the pause, or at once when the signal aborts (the loop then stops). */
async function pauseAfter(batchMs: number, signal: AbortSignal | undefined): Promise<void> {
  await wait(Math.max(RETENTION_PAUSE_MIN_MS, batchMs), undefined, { signal }).catch(() => undefined);
}

function addRows(into: RetentionCounts[], rows: RetentionRows): void {
  for (const [kind, n] of Object.entries(rows)) for (const totals of into) totals[kind] = (totals[kind] ?? 0) + n;
}
