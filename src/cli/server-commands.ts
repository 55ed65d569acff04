// erx serve | worker | migrate | sandbox seed
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig } from '../config.ts';
import { describeSandboxSeed, isDatabaseEmpty, seedSandbox } from '../onboarding/index.ts';
import { buildFeatures } from '../features.ts';
import { tuneV8ForServing } from '../platform/v8-tuning.ts';
import { assembleDeps, closeDeps, migrateConfiguredDatabase } from '../runtime.ts';
import { startMetricsExposure, startServer } from '../server.ts';
import { startRetentionSchedule } from '../retention/index.ts';
import { watchDispatcher } from '../system/index.ts';
import { startTokenMessageRunner } from '../token-delivery/index.ts';
import { startWebhookDispatcher } from '../webhooks/index.ts';
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
  // Deliveries go out from every serving process; on close, the attempts in flight finish and
  // record their outcome before the database closes. Retention runs hourly beside them.
  const dispatcher = startWebhookDispatcher(features.webhooks);
  watchDispatcher(features.system, dispatcher);
  const retention = startRetentionSchedule(features.retention);
  const tokens = startTokenMessageRunner(features.tokenDelivery, { id: dispatcher.id });
  const server = await startServer(deps, features, undefined, { beforeClosingDeps: () => stopAll([dispatcher, retention, tokens]) });
  const metricsLine = server.metricsUrl ? `erx metrics on ${server.metricsUrl}/metrics\n` : '';
  process.stdout.write(`erx listening on ${server.url}${config.basePath} (${config.mode}, ${deps.database.describe})\n${metricsLine}`);
  exitOnSignal(deps.logger, () => server.stop());
}

/** `erx worker`: the webhook dispatcher alone, beside or instead of the servers' own. */
async function work(): Promise<void> {
  const config = loadConfig();
  const deps = await assembleDeps(config, { traced: true, exposeMetrics: true });
  const features = buildFeatures(deps);
  const metricsListener = await startMetricsExposure(deps, features);
  const dispatcher = startWebhookDispatcher(features.webhooks);
  const retention = startRetentionSchedule(features.retention);
  const tokens = startTokenMessageRunner(features.tokenDelivery, { id: dispatcher.id });
  const metricsLine = metricsListener ? `erx metrics on ${metricsListener.url}/metrics\n` : '';
  process.stdout.write(`erx worker ${dispatcher.id} dispatching webhooks and token messages (${config.mode}, ${deps.database.describe})\n${metricsLine}`);
  exitOnSignal(deps.logger, async () => {
    try {
      await metricsListener?.close();
      await stopAll([dispatcher, retention, tokens]);
    } finally {
      await closeDeps(deps);
    }
  });
}

/** The dispatcher, the token runner and the retention schedule stop together; all are awaited whatever any does. */
async function stopAll(running: ReadonlyArray<{ stop(): Promise<void> }>): Promise<void> {
  const results = await Promise.allSettled(running.map((each) => each.stop()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
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
    .description('deliver webhooks only: the dispatcher every `erx serve` also runs (configuration from the environment)')
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
}
