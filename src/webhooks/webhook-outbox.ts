// The webhook outbox as a kind of record of the unit of work (platform/db/unit-of-work.ts). A
// change records its events; the sink writes each with its first delivery in the change's
// transaction, so an event exists exactly when the change committed and is then always on its
// way, and after that commit wakes the dispatchers of exactly the partners that transaction
// wrote for: this process's directly, other instances' through PostgreSQL NOTIFY.
import type { Insertable } from 'kysely';
import type { WebhookDeliveriesTable } from '../platform/db/database-schema.ts';
import { recordKind, type RecordSink } from '../platform/db/unit-of-work.ts';
import { createDeliveryWakeups, wakeChannelOf, type DeliveryWakeups, type WakeChannel } from '../platform/delivery/index.ts';
import { activeTraceparent } from '../platform/telemetry/trace-context.ts';
import type { Deps } from '../deps.ts';
import { newDeliveryId, type WebhookEventEnvelope } from './webhook-events.ts';
import { insertWebhookDeliveries, insertWebhookEvents } from './webhooks-store.ts';

export type OutboxRecord =
  /** A new event, with its first delivery. */
  | { event: WebhookEventEnvelope }
  /** Another delivery of a stored event (a replay). */
  | { delivery: Insertable<WebhookDeliveriesTable> }
  /** Nothing to write: the partner's waiting deliveries can go now (its endpoint was set or enabled). */
  | { wake: string };

export const webhookOutbox = recordKind<OutboxRecord>('webhook outbox');

export interface WebhookOutbox extends RecordSink<OutboxRecord> {
  /** What the dispatchers of this process subscribe to. */
  wakeups: DeliveryWakeups;
  /** Undefined on SQLite: there is no other instance to tell. */
  notifications: WakeChannel | undefined;
}

export function createWebhookOutbox(deps: Pick<Deps, 'database' | 'clock' | 'logger' | 'config' | 'tracing'>): WebhookOutbox {
  const { config, database, clock } = deps;
  // Traces on: each event keeps the request span it was written under (the sink writes in the change's context).
  const traceparentNow = deps.tracing?.tracer ? () => activeTraceparent() ?? null : () => null;
  // One channel per schema (the toolkit's wake-up after commit), keyed by partner.
  const notifications = wakeChannelOf(database, config.databaseUrl, config.databaseSchema, 'erx_webhooks');
  const wakeups = createDeliveryWakeups(database, notifications, (error) => deps.logger.warn({ err: error }, 'webhook wake-up NOTIFY failed'));
  return {
    kind: webhookOutbox,
    wakeups,
    notifications,
    async write(trx, records) {
      const now = clock.now().toISOString();
      const events = records.flatMap((record) => ('event' in record ? [record.event] : []));
      const traceparent = events.length > 0 ? traceparentNow() : null;
      await insertWebhookEvents(
        trx,
        events.map((event) => ({ id: event.event_id, event_type: event.event_type, partner_id: event.partner_id, organization_id: event.organization_id, body: JSON.stringify(event), created_at: event.timestamp, traceparent })),
      );
      await insertWebhookDeliveries(
        trx,
        records.flatMap((record) => ('event' in record ? [firstDelivery(record.event, now)] : 'delivery' in record ? [record.delivery] : [])),
      );
    },
    afterCommit(records) {
      wakeups.committed([...new Set(records.map(partnerOf))]);
    },
  };
}

function firstDelivery(event: WebhookEventEnvelope, now: string): Insertable<WebhookDeliveriesTable> {
  return { id: newDeliveryId(), event_id: event.event_id, partner_id: event.partner_id, reason: 'event', requested_by: null, status: 'pending', next_attempt_at: now, lease_owner: null, lease_expires_at: null, last_outcome: null, last_status_code: null, created_at: now, completed_at: null };
}

function partnerOf(record: OutboxRecord): string {
  if ('event' in record) return record.event.partner_id;
  if ('delivery' in record) return record.delivery.partner_id;
  return record.wake;
}
