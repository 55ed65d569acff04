// erx webhooks set-endpoint | confirm-endpoint | set-event-types | rotate-secret | show | disable | enable (each partner's endpoint),
// and, registered from webhook-history-commands.ts, events | attempts | replay | ping.
import type { Command } from 'commander';
import {
  confirmWebhookEndpoint,
  DEFAULT_ROTATION_OVERLAP,
  parseOverlap,
  rotateWebhookSecret,
  setWebhookEndpoint,
  setSubscribedEventTypes,
  setWebhookEndpointEnabled,
  SUBSCRIBABLE_EVENT_TYPES,
  showWebhookEndpoint,
} from '../webhooks/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';
import { registerWebhookHistoryCommands } from './webhook-history-commands.ts';

export function registerWebhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description("partners' webhook endpoints, deliveries and replays");

  addJsonOption(webhooks.command('set-endpoint <partner_id> <url>'))
    .description("register or change a partner's endpoint; the first registration prints its secret, once")
    .action(async (partnerId: string, url: string, options: CommandOptions) => {
      const result = await withFeatures(({ webhooks }) => setWebhookEndpoint(webhooks, partnerId, url));
      printResult(options, result, [
        `partner_id:      ${result.partner_id}`,
        `webhook_url:     ${result.webhook_url}${result.previous_url && result.previous_url !== result.webhook_url ? `   (was ${result.previous_url})` : ''}`,
        result.webhook_secret
          ? `webhook_secret:  ${result.webhook_secret}   (shown once: give it to the partner now)`
          : 'webhook_secret:  unchanged (never shown again; `erx webhooks rotate-secret` issues a new one)',
      ]);
    });

  addJsonOption(webhooks.command('confirm-endpoint <partner_id>'))
    .description("let a partner's change of its webhook URL take effect now, before ERX_ENDPOINT_CHANGE_DELAY_MINUTES is over")
    .action(async (partnerId: string, options: CommandOptions) => {
      const result = await withFeatures(({ webhooks }) => confirmWebhookEndpoint(webhooks, partnerId));
      printResult(options, result, [`partner_id:   ${result.partner_id}`, `webhook_url:  ${result.webhook_url}   (was ${result.previous_url}; the change was due at ${result.was_due_at})`]);
    });

  addJsonOption(webhooks.command('set-event-types <partner_id> <event_types...>'))
    .description(`choose the event types a partner's endpoint receives (default: the vendor's four); known: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`)
    .action(async (partnerId: string, types: string[], options: CommandOptions) => {
      const result = await withFeatures(({ webhooks }) => setSubscribedEventTypes(webhooks, partnerId, types));
      printResult(options, result, [`partner_id:   ${result.partner_id}`, `event types:  ${result.event_types.join(', ')}`]);
    });

  addJsonOption(webhooks.command('rotate-secret <partner_id>'))
    .description('issue a new secret, printed once; the old one keeps signing during the overlap')
    .option('--overlap <duration>', 'how long the old secret also signs (e.g. 30m, 24h, 7d; 0s for none)', DEFAULT_ROTATION_OVERLAP)
    .action(async (partnerId: string, options: CommandOptions & { overlap: string }) => {
      const overlapMs = parseOverlap(options.overlap);
      const result = await withFeatures(({ webhooks }) => rotateWebhookSecret(webhooks, partnerId, overlapMs));
      printResult(options, result, [
        `partner_id:      ${result.partner_id}`,
        `webhook_secret:  ${result.webhook_secret}   (shown once: give it to the partner now)`,
        result.previous_secret_valid_until
          ? `until ${result.previous_secret_valid_until} every delivery carries two v1 signatures: the new secret's, then the old one's`
          : 'the old secret no longer signs',
      ]);
    });

  addJsonOption(webhooks.command('show <partner_id>'))
    .description("a partner's endpoint and how its deliveries stand (never the secret)")
    .action(async (partnerId: string, options: CommandOptions) => {
      const view = await withFeatures(({ webhooks }) => showWebhookEndpoint(webhooks, partnerId));
      printResult(options, view, [
        `partner_id:        ${view.partner_id}`,
        `webhook_url:       ${view.webhook_url ?? '(none registered)'}`,
        ...(view.pending_change ? [`changing to:       ${view.pending_change.url} at ${view.pending_change.takes_effect_at} (asked by the partner; erx webhooks confirm-endpoint makes it now)`] : []),
        `enabled:           ${view.enabled ? 'yes' : 'no (deliveries wait until enabled)'}`,
        `secret issued at:  ${view.secret_issued_at ?? '(no secret)'}`,
        `standard webhooks: ${view.standard_webhooks ? 'yes (webhook-id, webhook-timestamp, webhook-signature)' : view.secret_issued_at ? 'no: a secret issued before them signs X-Webhook-Signature only; rotate-secret upgrades it' : 'no'}`,
        ...(view.previous_secret_valid_until ? [`old secret signs until: ${view.previous_secret_valid_until}`] : []),
        `deliveries:        ${view.deliveries.pending} pending, ${view.deliveries.delivered} delivered, ${view.deliveries.failed} failed`,
        `event types:       ${view.event_types.join(', ')}`,
      ]);
    });

  for (const enabled of [false, true]) {
    addJsonOption(webhooks.command(`${enabled ? 'enable' : 'disable'} <partner_id>`))
      .description(enabled ? 'resume deliveries to the endpoint (waiting ones go out at once)' : 'hold deliveries to the endpoint; they wait, pending, until enabled')
      .action(async (partnerId: string, options: CommandOptions) => {
        const result = await withFeatures(({ webhooks }) => setWebhookEndpointEnabled(webhooks, partnerId, enabled));
        const state = enabled ? 'enabled' : 'disabled';
        printResult(options, result, [`${result.changed ? '' : 'already '}${state}: webhook endpoint of partner ${result.partner_id}`]);
      });
  }

  registerWebhookHistoryCommands(webhooks);
}
