// erx backup | restore: the embedded SQLite database (PostgreSQL: pg_dump and pg_restore);
// erx restore --list: the databases earlier restores set aside (erx prune deletes them in time).
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../platform/clock.ts';
import { backupDatabase, BackupError, listBeforeRestoreCopies, restoreDatabase } from '../system/index.ts';
import { loadSecretKey } from '../runtime.ts';
import { addJsonOption, operatorUserName, printResult, type CommandOptions } from './cli-output.ts';

const pointText = (point: { seq: number; hash: string } | null) => (point ? `${point.seq}:${point.hash}` : 'none');

/** On a terminal, one line on stderr rewritten as pages are copied; elsewhere nothing (logs and pipes get the result only). */
function progressLine(enabled: boolean) {
  if (!enabled) return { onProgress: undefined, done: () => {} };
  let shown = -1;
  return {
    onProgress: ({ totalPages, copiedPages }: { totalPages: number; copiedPages: number }) => {
      const percent = totalPages === 0 ? 100 : Math.floor((copiedPages / totalPages) * 100);
      if (percent === shown) return;
      shown = percent;
      process.stderr.write(`\rbacking up: ${percent}% (${copiedPages} of ${totalPages} pages)`);
    },
    done: () => {
      if (shown >= 0) process.stderr.write('\n');
    },
  };
}

export function registerBackupCommands(program: Command): void {
  addJsonOption(program.command('backup <file>'))
    .description('copy the embedded SQLite database to <file> while the server runs (PostgreSQL: use pg_dump)')
    .option('--force', 'replace <file> if it exists')
    .action(async (file: string, options: CommandOptions & { force?: boolean }) => {
      const progress = progressLine(Boolean(process.stderr.isTTY) && !options.json);
      try {
        const config = loadConfig();
        const signer = { secretKey: loadSecretKey(config), operator: operatorUserName(), clock: systemClock };
        const result = await backupDatabase(config, file, signer, { force: options.force, onProgress: progress.onProgress });
        progress.done();
        printResult(options, result, [`backed up ${result.database} to ${result.file} (${result.bytes} bytes, integrity ok)`, `signed: ${result.signature} (keep it with the backup)`]);
      } catch (error) {
        progress.done();
        throw error;
      }
    });

  addJsonOption(program.command('restore [file]'))
    .description('put a backup made by `erx backup` in place of the embedded database; the server must be stopped (--list: the databases earlier restores set aside)')
    .option('--accept-unsigned', 'restore a backup that carries no signature (<file>.sig), e.g. one older than signatures; recorded in the audit trail')
    .option('--list', 'list the databases earlier restores set aside in the data directory, and when erx prune deletes each (ERX_RETENTION_BEFORE_RESTORE_DAYS)')
    .action(async (file: string | undefined, options: CommandOptions & { acceptUnsigned?: boolean; list?: boolean }) => {
      const config = loadConfig();
      if (options.list) {
        if (file !== undefined) throw new BackupError('--list takes no file: erx restore --list');
        const copies = listBeforeRestoreCopies(config, config.retentionBeforeRestoreDays);
        const lines = copies.map((copy) => `${copy.set_aside_at}  ${String(copy.bytes).padStart(12)} bytes  ${copy.file}  (erx prune deletes it from ${copy.pruned_from})`);
        printResult(options, copies, lines.length > 0 ? lines : ['no database set aside by a restore']);
        return;
      }
      if (file === undefined) throw new BackupError('give the backup file to restore (erx restore <file>), or --list');
      const settings = { clock: systemClock, secretKey: loadSecretKey(config), operator: operatorUserName(), acceptUnsigned: options.acceptUnsigned ?? false };
      const result = await restoreDatabase(config, file, settings);
      printResult(options, result, [
        `restored ${result.database} from ${result.restoredFrom}`,
        result.keptAside ? `the database it replaced is kept at ${result.keptAside} (erx prune deletes it after ERX_RETENTION_BEFORE_RESTORE_DAYS)` : 'there was no database to replace',
        result.migrationsApplied.length ? `migrations applied: ${result.migrationsApplied.join(', ')}` : 'no migration was pending',
        result.signed ? 'signature: valid' : 'signature: none (accepted unsigned, recorded)',
        `audit chain head: ${pointText(result.restoredHead)} restored in place of ${pointText(result.replacedHead)} (recorded as admin.database_restore)`,
      ]);
    });
}
