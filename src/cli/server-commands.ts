// erx serve | migrate | sandbox seed
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { describeSandboxSeed, isDatabaseEmpty, seedSandbox } from '../onboarding/sandbox-seed.ts';
import { systemClock } from '../platform/clock.ts';
import { migrateToLatest } from '../platform/migrator.ts';
import { tuneV8ForServing } from '../platform/v8-tuning.ts';
import { assembleDeps, loadSecretKey } from '../runtime.ts';
import { startServer } from '../server.ts';
import { addJsonOption, printResult, withDatabase, type CommandOptions } from './cli-output.ts';

function apiBaseUrl(config: { publicUrl: string; basePath: string }): string {
  return `${config.publicUrl}${config.basePath}`;
}

async function serve(options: { seedIfEmpty?: boolean }): Promise<void> {
  tuneV8ForServing();
  const config = loadConfig();
  const deps = await assembleDeps(config);
  const ctx = { db: deps.database.db, clock: systemClock, secretKey: deps.secretKey };
  if (options.seedIfEmpty && config.mode === 'sandbox' && (await isDatabaseEmpty(ctx))) {
    const seed = await seedSandbox(ctx, apiBaseUrl(config));
    process.stdout.write(`${describeSandboxSeed(seed).join('\n')}\n\n`);
  }
  const server = await startServer(deps);
  process.stdout.write(`erx listening on ${server.url}${config.basePath} (${config.mode}, ${deps.database.describe})\n`);
  const shutdown = (signal: string) => {
    deps.logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        deps.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the API (HOST, PORT and the rest from the environment)')
    .option('--seed-if-empty', 'in sandbox mode, run `sandbox seed` first when the database has no partner')
    .action(serve);

  addJsonOption(program.command('migrate'))
    .description('apply pending database migrations')
    .action(async (options: CommandOptions) => {
      // Opening the database already migrates it; report what ran by migrating explicitly first.
      const result = await withDatabase(async (database) => ({ database: database.describe, ...(await migrateToLatest(database)) }));
      printResult(options, result, [`database ${result.database} is up to date`]);
    });

  const sandbox = program.command('sandbox').description('sandbox helpers');
  addJsonOption(sandbox.command('seed'))
    .description('create a demo partner, organization and users, and print their credentials')
    .action(async (options: CommandOptions) => {
      const seed = await withDatabase(({ db }, config) =>
        seedSandbox({ db, clock: systemClock, secretKey: loadSecretKey(config) }, apiBaseUrl(config)),
      );
      printResult(options, seed, describeSandboxSeed(seed));
    });
}
