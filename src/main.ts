// The `erx` operator CLI: one file per command group under cli/.
import { Command, CommanderError } from 'commander';
import { registerAuditCommands } from './cli/audit-commands.ts';
import { registerBackupCommands } from './cli/backup-commands.ts';
import { registerDeliveriesCommands } from './cli/deliveries-commands.ts';
import { fail } from './cli/cli-output.ts';
import { registerHiCommands } from './cli/hi-commands.ts';
import { registerMedicinesCommands } from './cli/medicines-commands.ts';
import { registerMfaCommands } from './cli/mfa-commands.ts';
import { registerOnboardingCommands } from './cli/onboarding-commands.ts';
import { registerPruneCommands } from './cli/prune-commands.ts';
import { registerServerCommands } from './cli/server-commands.ts';
import { registerWebhooksCommands } from './cli/webhooks-commands.ts';

const program = new Command('erx')
  .description('Operator CLI of the erx partner API')
  .showHelpAfterError(false)
  .exitOverride()
  .configureOutput({ writeErr: (text) => process.stderr.write(text.startsWith('error:') ? `erx: ${text}` : text) });

registerServerCommands(program);
registerOnboardingCommands(program);
registerMfaCommands(program);
registerWebhooksCommands(program);
registerDeliveriesCommands(program);
registerPruneCommands(program);
registerAuditCommands(program);
registerBackupCommands(program);
registerHiCommands(program);
registerMedicinesCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  fail(error);
}
