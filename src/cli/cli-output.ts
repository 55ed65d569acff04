// How every erx command answers: a result as JSON (--json) or readable lines, and any
// failure as one line on stderr with a non-zero exit. Every command that opens the features
// runs in an operator's audit scope, so what it changes is recorded as the operator's doing.
import os from 'node:os';
import type { Command } from 'commander';
import { AuditError, currentAuditScope, runInAuditScope } from '../audit/index.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { PbsImportError } from '../medicines/index.ts';
import { OnboardingError } from '../onboarding/index.ts';
import { MfaError } from '../mfa/index.ts';
import { buildFeatures, type Features } from '../features.ts';
import { BackupError } from '../system/index.ts';
import { TokenDeliveryError } from '../token-delivery/index.ts';
import { WebhooksError } from '../webhooks/index.ts';
import { HiCheckInputError } from '../users/index.ts';
import type { Deps } from '../deps.ts';
import { newRequestId } from '../platform/ids.ts';
import { assembleDeps, closeDeps, type AssembleOptions } from '../runtime.ts';

export interface CommandOptions {
  json?: boolean;
}

export function printResult(options: CommandOptions, result: unknown, lines: string[]): void {
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${lines.join('\n')}\n`);
}

/** Expected failures (bad input, missing records, bad config) print their message alone. */
export function describeFailure(error: unknown): string {
  if (error instanceof OnboardingError || error instanceof MfaError || error instanceof WebhooksError || error instanceof ConfigError || error instanceof BackupError || error instanceof AuditError || error instanceof HiCheckInputError || error instanceof PbsImportError || error instanceof TokenDeliveryError) return error.message;
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

export function fail(error: unknown): never {
  process.stderr.write(`erx: ${describeFailure(error)}\n`);
  process.exit(1);
}

/**
 * Runs `work` with the features built on the configured database, closing it whatever happens,
 * in an audit scope naming the operator (the OS user) with a request id of its own. What the
 * command read or looked up is written before its result is printed: if it cannot be, the
 * command fails.
 */
export async function withFeatures<T>(work: (features: Features, deps: Deps) => Promise<T>, options: AssembleOptions = {}): Promise<T> {
  const deps = await assembleDeps(loadConfig(), options);
  try {
    const features = buildFeatures(deps);
    const scope = { actor: { kind: 'operator' as const, operator: operatorUserName() }, hpio: null, requestId: newRequestId(), clientAddress: null };
    return await runInAuditScope(scope, async () => {
      try {
        return await work(features, deps);
      } finally {
        await features.audit.flushPending(currentAuditScope()!);
      }
    });
  } finally {
    await closeDeps(deps);
  }
}

/** The operating-system user running the command. */
export function operatorUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
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
