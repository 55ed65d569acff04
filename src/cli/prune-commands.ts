// erx prune [--dry-run] [--json]: retention on demand, the same run every `erx serve` and
// `erx worker` makes hourly: the steps the features registered, in order. A terminal sees the
// totals grow batch by batch on stderr; stdout carries the counts per kind and a line per step
// (JSON with --json: the counts, and per step its cutoffs, counts and batches).
import type { Command } from 'commander';
import { pruneExpiredRecords, retentionKindsOf, type PruneReport, type RetentionCounts } from '../retention/index.ts';
import { pruneBeforeRestoreCopies } from '../system/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

function describeCounts(counts: RetentionCounts): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
}

function describeReport(report: PruneReport, kinds: readonly string[]): string[] {
  const verb = report.dry_run ? 'would prune' : 'pruned';
  const width = Math.max(...kinds.map((kind) => kind.length), ...report.steps.map((step) => step.step.length));
  return [
    ...kinds.map((kind) => `${kind.padEnd(width)}  ${report.counts[kind] ?? 0}`),
    ...report.steps.map((step) => {
      const upTo = Object.values(step.cutoffs);
      const until = upTo.length > 0 ? ` up to ${upTo.join(' / ')}` : '';
      const setting = step.setting ? ` (${step.setting})` : '';
      const batches = report.dry_run ? '' : `, ${step.batches} batch${step.batches === 1 ? '' : 'es'}`;
      return `${step.step.padEnd(width)}  ${verb}${until}${setting}${batches}`;
    }),
  ];
}

export function registerPruneCommands(program: Command): void {
  addJsonOption(program.command('prune'))
    .description('run the retention steps: delete (or blank) what each feature keeps only for a while (webhook history, response bodies, idempotency keys, expired SSO tokens and portal sessions, token message destinations), in batches, and the databases restores set aside past ERX_RETENTION_BEFORE_RESTORE_DAYS')
    .option('--dry-run', 'count what would be pruned; delete nothing')
    .action(async (options: CommandOptions & { dryRun?: boolean }) => {
      const terminal = process.stderr.isTTY === true;
      const { report, kinds, copies } = await withFeatures(async ({ retention }, deps) => ({
        kinds: retentionKindsOf(retention),
        report: await pruneExpiredRecords(retention, {
          dryRun: options.dryRun === true,
          onBatch: terminal ? ({ totals }) => process.stderr.write(`\rprune: ${describeCounts(totals)}\x1b[K`) : undefined,
        }),
        // Files, not rows: the databases restores set aside, by their own setting.
        copies: pruneBeforeRestoreCopies(deps.config, deps.clock.now(), deps.config.retentionBeforeRestoreDays, { dryRun: options.dryRun === true }),
      }));
      if (terminal && !options.dryRun) process.stderr.write('\n');
      const verb = copies.dry_run ? 'would delete' : 'deleted';
      const copyLines = copies.removed.map((file) => `before_restore_copies  ${verb} ${file} (ERX_RETENTION_BEFORE_RESTORE_DAYS)`);
      printResult(options, { ...report, before_restore_copies: copies }, [...describeReport(report, kinds), `before_restore_copies  ${copies.removed.length}`, ...copyLines]);
    });
}
