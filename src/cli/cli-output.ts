// How every erx command answers: a result as JSON (--json) or readable lines, and any
// failure as one line on stderr with a non-zero exit.
import type { Command } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { OnboardingError } from '../onboarding/onboarding-service.ts';
import { openConfiguredDatabase } from '../runtime.ts';
import type { DatabaseHandle } from '../platform/database.ts';

export interface CommandOptions {
  json?: boolean;
}

export function printResult(options: CommandOptions, result: unknown, lines: string[]): void {
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${lines.join('\n')}\n`);
}

/** Expected failures (bad input, missing records, bad config) print their message alone. */
export function describeFailure(error: unknown): string {
  if (error instanceof OnboardingError || error instanceof ConfigError) return error.message;
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

export function fail(error: unknown): never {
  process.stderr.write(`erx: ${describeFailure(error)}\n`);
  process.exit(1);
}

/** Runs `work` against the configured database, closing it whatever happens. */
export async function withDatabase<T>(work: (database: DatabaseHandle, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openConfiguredDatabase(config);
  try {
    return await work(database, config);
  } finally {
    await database.close();
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
