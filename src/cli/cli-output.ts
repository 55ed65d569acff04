// How every erx command answers: a result as JSON (--json) or readable lines, and any
// failure as one line on stderr with a non-zero exit.
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { OnboardingError } from '../onboarding/index.ts';
import { buildFeatures, type Features } from '../features.ts';
import { BackupError } from '../system/index.ts';
import { WebhooksError } from '../webhooks/index.ts';
import type { Deps } from '../deps.ts';
import { assembleDeps, closeDeps } from '../runtime.ts';

export interface CommandOptions {
  json?: boolean;
}

export function printResult(options: CommandOptions, result: unknown, lines: string[]): void {
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${lines.join('\n')}\n`);
}

/** Expected failures (bad input, missing records, bad config) print their message alone. */
export function describeFailure(error: unknown): string {
  if (error instanceof OnboardingError || error instanceof WebhooksError || error instanceof ConfigError || error instanceof BackupError) return error.message;
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

export function fail(error: unknown): never {
  process.stderr.write(`erx: ${describeFailure(error)}\n`);
  process.exit(1);
}

/** Runs `work` with the features built on the configured database, closing it whatever happens. */
export async function withFeatures<T>(work: (features: Features, deps: Deps) => Promise<T>): Promise<T> {
  const deps = await assembleDeps(loadConfig());
  try {
    return await work(buildFeatures(deps), deps);
  } finally {
    await closeDeps(deps);
  }
}

export function addJsonOption(command: Command): Command {
  return command.option('--json', 'print the result as JSON');
}

export function listOption(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
