// Webhooks: events go into the outbox inside the transaction of the change they report, each
// with its first delivery, and eventsCommitted wakes the dispatchers once that has committed.
// This module makes the feature's context; the operations live beside it: endpoints and
// secrets (webhook-endpoints.ts), the dispatcher's steps (webhook-deliveries.ts), what
// operators see and replay (webhook-history.ts) and ping (webhook-ping.ts).
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Mode } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { Deps } from '../deps.ts';
import { WEBHOOK_DELIVERY_RULES } from './webhook-delivery-rules.ts';
import { newDeliveryId, type WebhookEventEnvelope } from './webhook-events.ts';
import { systemHostResolver, type HostResolver } from './webhook-host-resolution.ts';
import { DeliveryWakeups, encodeWakePayload } from './webhook-wakeups.ts';
import { insertWebhookDeliveries, insertWebhookEvent } from './webhooks-store.ts';

/** A mistake in what the operator asked for (unknown partner, bad URL, ...); the CLI prints it as one line. */
export class WebhooksError extends Error {
  override name = 'WebhooksError';
}

export interface WebhookSettings {
  /** Per attempt: the spec's 10 s unless configured (tests). */
  timeoutMs: number;
  /** Most deliveries in flight to one endpoint from this process, before any 429. */
  maxInFlightPerEndpoint: number;
  pollMs: number;
}

export interface WebhooksContext {
  db: DatabaseHandle;
  clock: Clock;
  secretKey: Buffer;
  logger: Logger;
  /** Production refuses non-https URLs and non-public addresses (the SSRF guard). */
  mode: Mode;
  settings: WebhookSettings;
  resolveHost: HostResolver;
  wakeups: DeliveryWakeups;
  /** Where dispatchers LISTEN for other instances' wakes; undefined on SQLite. */
  notifications: { url: string; channel: string } | undefined;
}

export function createWebhooksContext(
  deps: Pick<Deps, 'database' | 'clock' | 'secretKey' | 'logger' | 'config'>,
  options: { resolveHost?: HostResolver } = {},
): WebhooksContext {
  const { config, database } = deps;
  const notifications = config.databaseUrl && database.kind === 'postgres' ? { url: config.databaseUrl, channel: wakeChannel(config.databaseSchema) } : undefined;
  const broadcast = notifications
    ? async (partnerIds: readonly string[]) => {
        await sql`select pg_notify(${notifications.channel}, ${encodeWakePayload(partnerIds)})`.execute(database);
      }
    : undefined;
  return {
    db: database,
    clock: deps.clock,
    secretKey: deps.secretKey,
    logger: deps.logger,
    mode: config.mode,
    settings: {
      timeoutMs: config.webhookTimeoutMs ?? WEBHOOK_DELIVERY_RULES.attemptTimeoutMs,
      maxInFlightPerEndpoint: config.webhookMaxInFlight,
      pollMs: config.webhookPollMs,
    },
    resolveHost: options.resolveHost ?? systemHostResolver,
    wakeups: new DeliveryWakeups(broadcast, (error) => deps.logger.warn({ err: error }, 'webhook wake-up NOTIFY failed')),
    notifications,
  };
}

/** One channel per schema, so instances of another deployment in the same database stay asleep. */
function wakeChannel(schema: string | undefined): string {
  const name = schema ?? 'public';
  const channel = `erx_webhooks_${name}`;
  // A channel name is an identifier: at most 63 bytes.
  return channel.length <= 63 ? channel : `erx_webhooks_${createHash('sha256').update(name).digest('hex').slice(0, 40)}`;
}

/**
 * Writes the event into the outbox with `trx`, the open transaction of the change it reports,
 * together with its first delivery: both commit or roll back with that change, so an event
 * that exists is always on its way.
 */
export async function recordEvent(ctx: WebhooksContext, trx: Kysely<Database>, event: WebhookEventEnvelope): Promise<void> {
  await insertWebhookEvent(trx, {
    id: event.event_id,
    event_type: event.event_type,
    partner_id: event.partner_id,
    organization_id: event.organization_id,
    body: JSON.stringify(event),
    created_at: event.timestamp,
  });
  const now = ctx.clock.now().toISOString();
  await insertWebhookDeliveries(trx, [
    { id: newDeliveryId(), event_id: event.event_id, partner_id: event.partner_id, reason: 'event', requested_by: null, status: 'pending', next_attempt_at: now, lease_owner: null, lease_expires_at: null, last_outcome: null, last_status_code: null, created_at: now, completed_at: null },
  ]);
  ctx.wakeups.noteRecorded(event.partner_id);
}

/**
 * Called by a service once the transaction that recorded events has committed, so their first
 * delivery starts at once instead of at a dispatcher's next poll: this process's dispatcher is
 * woken directly, other instances' through PostgreSQL NOTIFY.
 */
export function eventsCommitted(ctx: WebhooksContext): void {
  ctx.wakeups.committed();
}
