// erx prune [--dry-run] [--json]: retention on demand, the same run every dispatcher's process
// makes hourly. A terminal sees the totals grow batch by batch on stderr; stdout carries the
// counts per kind (JSON with --json).
import type { Command } from 'commander';
import { pruneExpiredRecords, RETENTION_KINDS, type PruneReport, type RetentionCounts } from '../retention/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

function describeCounts(counts: RetentionCounts): string {
  return RETENTION_KINDS.filter((kind) => counts[kind] > 0)
    .map((kind) => `${kind} ${counts[kind]}`)
    .join(', ');
}

function describeReport(report: PruneReport): string[] {
  const verb = report.dry_run ? 'would prune' : 'pruned';
  const width = Math.max(...RETENTION_KINDS.map((kind) => kind.length));
  return [
    ...RETENTION_KINDS.map((kind) => `${kind.padEnd(width)}  ${report.counts[kind]}`),
    `${verb} webhook events created before ${report.cutoffs.webhookEvents}, response bodies before ${report.cutoffs.responseBodies}${report.dry_run ? '' : ` (${report.batches} batches)`}`,
  ];
}

export function registerPruneCommands(program: Command): void {
  addJsonOption(program.command('prune'))
    .description('delete what retention keeps only for a while (webhook history, response bodies, idempotency keys, expired SSO tokens and portal sessions), in batches')
    .option('--dry-run', 'count what would be pruned; delete nothing')
    .action(async (options: CommandOptions & { dryRun?: boolean }) => {
      const terminal = process.stderr.isTTY === true;
      const report = await withFeatures(({ retention }) =>
        pruneExpiredRecords(retention, {
          dryRun: options.dryRun === true,
          onBatch: terminal ? ({ totals }) => process.stderr.write(`\rprune: ${describeCounts(totals)}\x1b[K`) : undefined,
        }),
      );
      if (terminal && !options.dryRun) process.stderr.write('\n');
      printResult(options, report, describeReport(report));
    });
}
