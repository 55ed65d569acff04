// erx serve | migrate | sandbox seed
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { describeSandboxSeed, isDatabaseEmpty, seedSandbox } from '../onboarding/sandbox-seed.ts';
import { buildFeatures } from '../features.ts';
import { tuneV8ForServing } from '../platform/v8-tuning.ts';
import { assembleDeps, migrateConfiguredDatabase } from '../runtime.ts';
import { startServer } from '../server.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

async function serve(options: { seedIfEmpty?: boolean }): Promise<void> {
  tuneV8ForServing();
  const config = loadConfig();
  const deps = await assembleDeps(config, { serving: true });
  const features = buildFeatures(deps);
  if (options.seedIfEmpty && config.mode === 'sandbox' && (await isDatabaseEmpty(features.onboarding))) {
    const seed = await seedSandbox(features.onboarding, features);
    process.stdout.write(`${describeSandboxSeed(seed).join('\n')}\n\n`);
  }
  const server = await startServer(deps, features);
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
      const result = await migrateConfiguredDatabase(loadConfig());
      printResult(options, result, [`database ${result.database} is up to date`]);
    });

  const sandbox = program.command('sandbox').description('sandbox helpers');
  addJsonOption(sandbox.command('seed'))
    .description('create a demo partner, organization and users, and print their credentials')
    .action(async (options: CommandOptions) => {
      const seed = await withFeatures((features) => seedSandbox(features.onboarding, features));
      printResult(options, seed, describeSandboxSeed(seed));
    });
}
