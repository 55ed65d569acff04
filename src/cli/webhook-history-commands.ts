// erx webhooks events | attempts | replay | ping: what operators see of deliveries, and what
// they do about them.
import type { Command } from 'commander';
import {
  listWebhookAttempts,
  listWebhookEvents,
  parseEventFilter,
  replayWebhookEvents,
  type EventFilterInput,
  pingWebhookEndpoint,
} from '../webhooks/index.ts';
import { addJsonOption, operatorUserName, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

function addFilterOptions(command: Command): Command {
  return command
    .option('--partner <partner_id>', "only this partner's events")
    .option('--status <status>', 'state of the latest delivery: pending, delivered or failed')
    .option('--type <event_type>', 'only this event type, e.g. prescription.created')
    .option('--since <time>', 'created at or after (ISO-8601)')
    .option('--until <time>', 'created at or before (ISO-8601)')
    .option('--limit <n>', 'at most this many events');
}

/** Who asked for a replay: --by, else the operating-system user running the command. */
function operatorName(by: string | undefined): string {
  return by !== undefined && by.trim() !== '' ? by.trim() : operatorUserName();
}

export function registerWebhookHistoryCommands(webhooks: Command): void {
  addJsonOption(addFilterOptions(webhooks.command('events')))
    .description('events, newest first (100 unless --limit), with the state of their latest delivery')
    .action(async (options: CommandOptions & EventFilterInput) => {
      const filter = parseEventFilter(options);
      const events = await withFeatures(({ webhooks }) => listWebhookEvents(webhooks, filter));
      printResult(options, events, [
        ...events.map((e) => `${e.event_id}  ${e.created_at}  ${e.partner_id}  ${e.event_type}  ${e.status}  attempts ${e.attempts}${e.last_outcome ? `  last ${e.last_outcome}${e.last_status_code ? ` ${e.last_status_code}` : ''}` : ''}`),
        `${events.length} event${events.length === 1 ? '' : 's'}`,
      ]);
    });

  addJsonOption(webhooks.command('attempts <event_id>'))
    .description("every delivery of an event (its own and each replay) and every attempt's outcome")
    .action(async (eventId: string, options: CommandOptions) => {
      const log = await withFeatures(({ webhooks }) => listWebhookAttempts(webhooks, eventId));
      printResult(options, log, [
        `${log.event_id}  ${log.event_type}  partner ${log.partner_id}`,
        ...log.deliveries.flatMap((d) => [
          `  delivery ${d.delivery_id}  ${d.reason}${d.requested_by ? ` by ${d.requested_by}` : ''} at ${d.requested_at}: ${d.status}${d.next_attempt_at ? ` (next attempt ${d.next_attempt_at})` : ''}${d.ended_because ? ` (unsent: ${d.ended_because})` : ''}`,
          ...d.attempts.map(
            (a) => `    #${a.attempt_number}  ${a.started_at}  ${a.duration_ms} ms  ${a.outcome}${a.status_code ? ` ${a.status_code}` : ''}${a.detail ? `  ${a.detail}` : ''}`,
          ),
        ]),
      ]);
    });

  addJsonOption(addFilterOptions(webhooks.command('replay [event_ids...]')))
    .description('deliver events again (same event_id, fresh signatures, 3 attempts): by id, or --partner P --status failed [filters]')
    .option('--dry-run', 'list what would be replayed, replay nothing')
    .option('--by <name>', 'who asks (recorded with each replay; default: your user name)')
    .action(async (eventIds: string[], options: CommandOptions & EventFilterInput & { dryRun?: boolean; by?: string }) => {
      const filtering = [options.partner, options.status, options.type, options.since, options.until, options.limit].some((v) => v !== undefined);
      const filter = filtering ? parseEventFilter(options) : undefined;
      const result = await withFeatures(({ webhooks }) =>
        replayWebhookEvents(webhooks, {
          eventIds: eventIds.length > 0 ? eventIds : undefined,
          filter,
          requestedBy: operatorName(options.by),
          dryRun: options.dryRun ?? false,
          onProgress: (done, total) => process.stderr.write(`replay: ${done}/${total} events queued for delivery\n`),
        }),
      );
      const verb = result.dry_run ? 'would replay' : 'replayed';
      printResult(options, result, [...result.replayed.map((r) => `${r.event_id}${r.delivery_id ? `  delivery ${r.delivery_id}` : ''}`), `${verb} ${result.matched} event${result.matched === 1 ? '' : 's'} (requested by ${result.requested_by})`]);
    });

  addJsonOption(webhooks.command('ping <partner_id>'))
    .description("send one signed webhook.ping to the partner's endpoint and show the answer (exit 1 unless 2xx)")
    .action(async (partnerId: string, options: CommandOptions) => {
      const result = await withFeatures(({ webhooks }) => pingWebhookEndpoint(webhooks, partnerId));
      printResult(options, result, [
        `POST ${result.url}`,
        `answer:   ${result.status_code ?? result.outcome}${result.detail ? ` (${result.detail})` : ''}`,
        `latency:  ${result.latency_ms} ms`,
        `2xx:      ${result.ok ? 'yes' : 'no'}`,
      ]);
      if (!result.ok) process.exitCode = 1;
    });
}
