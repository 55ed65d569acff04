// Webhooks: events go into the outbox inside the transaction of the change they report.
import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { Deps } from '../runtime.ts';
import type { WebhookEventEnvelope } from './webhook-events.ts';
import { insertWebhookEvent } from './webhooks-store.ts';

export interface WebhooksContext {
  db: Kysely<Database>;
  clock: Clock;
}

export function createWebhooksContext(deps: Pick<Deps, 'database' | 'clock'>): WebhooksContext {
  return { db: deps.database, clock: deps.clock };
}

/**
 * Writes the event into the outbox with `trx`, the open transaction of the change it reports:
 * it commits or rolls back with that change.
 */
export async function recordEvent(_ctx: WebhooksContext, trx: Kysely<Database>, event: WebhookEventEnvelope): Promise<void> {
  await insertWebhookEvent(trx, {
    id: event.event_id,
    event_type: event.event_type,
    partner_id: event.partner_id,
    organization_id: event.organization_id,
    body: JSON.stringify(event),
    created_at: event.timestamp,
  });
}

/**
 * Called by a service once the transaction that recorded events has committed, so their first
 * delivery starts at once instead of at the dispatcher's next poll.
 */
export function eventsCommitted(_ctx: WebhooksContext): void {
  // The dispatcher is not built yet: nothing to wake.
}
