// erx deliveries list: the token messages sent, kept (no channel configured), pending or failed,
// each with its prescription's SCID; the listing is noted in the audit trail (admin.deliveries_read).
import type { Command } from 'commander';
import { listTokenMessages, TOKEN_MESSAGE_STATUSES, type TokenMessageView } from '../token-delivery/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

function lineOf(message: TokenMessageView): string {
  const error = message.last_error ? `  ${message.last_error}` : '';
  // A Pending prescription has no SCID yet.
  const scid = message.scid ?? 'none';
  return `${message.created_at}  ${message.status.padEnd(7)}  ${message.channel.padEnd(5)}  ${message.destination.padEnd(18)}  scid ${scid.padEnd(18)}  prescription ${message.prescription_id}  attempts ${message.attempts}${error}`;
}

export function registerDeliveriesCommands(program: Command): void {
  const deliveries = program.command('deliveries').description('prescription tokens sent to patients and pharmacies by SMS or e-mail');
  addJsonOption(deliveries.command('list'))
    .description('token messages, newest first (destinations masked; the message text is never shown)')
    .option('--status <status>', `only messages in this status: ${TOKEN_MESSAGE_STATUSES.join(', ')}`)
    .option('--prescription <id>', "only this prescription's messages (its platform id)")
    .option('--scid <scid>', "only the messages of the prescription with this SCID (18 letters and digits)")
    .option('--limit <n>', 'at most this many (1 to 1000)', '100')
    .action(async (options: CommandOptions & { status?: string; prescription?: string; scid?: string; limit: string }) => {
      const filter = { status: options.status, prescriptionId: options.prescription, scid: options.scid, limit: Number(options.limit) };
      const messages = await withFeatures(({ tokenDelivery }) => listTokenMessages(tokenDelivery, filter));
      printResult(options, messages, messages.length === 0 ? ['no token messages'] : messages.map(lineOf));
    });
}
