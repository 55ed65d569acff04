// erx serve | worker | migrate | sandbox seed
import { registerSandboxDispenseCommand } from './sandbox-commands.ts';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig } from '../config.ts';
import { describeSandboxSeed, isDatabaseEmpty, seedSandbox } from '../onboarding/index.ts';
import { buildFeatures } from '../features.ts';
import { tuneV8ForServing } from '../platform/v8-tuning.ts';
import { assembleDeps, closeDeps, migrateConfiguredDatabase } from '../runtime.ts';
import { startMetricsExposure, startServer } from '../server.ts';
import { startBackgroundLoops } from '../platform/delivery/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

async function serve(options: { seedIfEmpty?: boolean }): Promise<void> {
  tuneV8ForServing();
  const config = loadConfig();
  const deps = await assembleDeps(config, { serving: true, traced: true, exposeMetrics: true });
  const features = buildFeatures(deps);
  if (options.seedIfEmpty && config.mode === 'sandbox' && (await isDatabaseEmpty(features.onboarding))) {
    const seed = await seedSandbox(features.onboarding, features);
    process.stdout.write(`${describeSandboxSeed(seed).join('\n')}\n\n`);
  }
  // Every background loop (deliveries, token messages, retention) runs in every serving process;
  // on close they drain (the attempts in flight finish and record their outcome) before the database closes.
  const loops = startBackgroundLoops(features.backgroundLoops, deps.logger);
  const server = await startServer(deps, features, undefined, { beforeClosingDeps: () => loops.stop() });
  const metricsLine = server.metricsUrl ? `erx metrics on ${server.metricsUrl}/metrics\n` : '';
  process.stdout.write(`erx listening on ${server.url}${config.basePath} (${config.mode}, ${deps.database.describe})\n${metricsLine}`);
  exitOnSignal(deps.logger, () => server.stop());
}

/** `erx worker`: the background loops alone (deliveries, token messages, retention), beside or instead of the servers' own. */
async function work(): Promise<void> {
  const config = loadConfig();
  const deps = await assembleDeps(config, { traced: true, exposeMetrics: true });
  const features = buildFeatures(deps);
  const metricsListener = await startMetricsExposure(deps, features);
  const loops = startBackgroundLoops(features.backgroundLoops, deps.logger);
  const metricsLine = metricsListener ? `erx metrics on ${metricsListener.url}/metrics\n` : '';
  process.stdout.write(`erx worker ${loops.runnerId} dispatching webhooks and token messages (${config.mode}, ${deps.database.describe})\n${metricsLine}`);
  exitOnSignal(deps.logger, async () => {
    try {
      await metricsListener?.close();
      await loops.stop();
    } finally {
      await closeDeps(deps);
    }
  });
}

/** On SIGTERM or SIGINT: stop, then exit 0 (1 if stopping failed). */
function exitOnSignal(logger: Logger, stop: () => Promise<void>): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
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

  program
    .command('worker')
    .description('run the background loops only (webhook deliveries, token messages, retention), as every `erx serve` also does (configuration from the environment)')
    .action(work);

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
  registerSandboxDispenseCommand(sandbox);
}
