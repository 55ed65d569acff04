// Queries of what operators see: events with the state of their latest delivery, every
// delivery and attempt of an event.
import type { Kysely } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from '../platform/db/database-schema.ts';
import type { DeliveryStatus } from '../platform/db/stored-values.ts';

export interface EventQuery {
  partnerId?: string | undefined;
  /** Of the event's latest delivery. */
  status?: DeliveryStatus | undefined;
  eventType?: string | undefined;
  /** ISO times, inclusive, on the event's creation. */
  since?: string | undefined;
  until?: string | undefined;
  organizationId?: string | undefined;
  /** Only events whose organization still enables their partner: what the partner's own credentials may reach. */
  stillEnabled?: boolean | undefined;
  /** Newest first only: events strictly before this (created_at, id), the previous page's last. */
  before?: { createdAt: string; id: string } | undefined;
  limit: number;
  order: 'oldest first' | 'newest first';
}

export interface EventWithLatestDelivery {
  id: string;
  event_type: string;
  partner_id: string;
  organization_id: string;
  created_at: string;
  delivery_id: string;
  status: string;
  attempts_made: number;
  last_outcome: string | null;
  last_status_code: number | null;
  delivered_or_failed_at: string | null;
}

/** Events matching `q`, each with its latest delivery (the last replay, or its own). */
export async function listEventsWithLatestDelivery(db: Kysely<Database>, q: EventQuery): Promise<EventWithLatestDelivery[]> {
  const direction = q.order === 'oldest first' ? 'asc' : 'desc';
  return db
    .selectFrom('webhook_events as e')
    .innerJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
    .select(['e.id', 'e.event_type', 'e.partner_id', 'e.organization_id', 'e.created_at', 'd.id as delivery_id', 'd.status', 'd.attempts_made', 'd.last_outcome', 'd.last_status_code'])
    .select('d.completed_at as delivered_or_failed_at')
    .where('d.id', '=', (eb) =>
      eb.selectFrom('webhook_deliveries as l').select('l.id').whereRef('l.event_id', '=', 'e.id').orderBy('l.created_at', 'desc').orderBy('l.id', 'desc').limit(1),
    )
    .$if(q.partnerId !== undefined, (qb) => qb.where('e.partner_id', '=', q.partnerId!))
    .$if(q.status !== undefined, (qb) => qb.where('d.status', '=', q.status!))
    .$if(q.eventType !== undefined, (qb) => qb.where('e.event_type', '=', q.eventType!))
    .$if(q.since !== undefined, (qb) => qb.where('e.created_at', '>=', q.since!))
    .$if(q.until !== undefined, (qb) => qb.where('e.created_at', '<=', q.until!))
    .$if(q.organizationId !== undefined, (qb) => qb.where('e.organization_id', '=', q.organizationId!))
    .$if(q.stillEnabled === true, (qb) =>
      qb.where(({ exists, selectFrom }) =>
        exists(selectFrom('organization_partners as op').select('op.partner_id').whereRef('op.organization_id', '=', 'e.organization_id').whereRef('op.partner_id', '=', 'e.partner_id')),
      ),
    )
    .$if(q.before !== undefined, (qb) =>
      qb.where((eb) => eb.or([eb('e.created_at', '<', q.before!.createdAt), eb.and([eb('e.created_at', '=', q.before!.createdAt), eb('e.id', '<', q.before!.id)])])),
    )
    .orderBy('e.created_at', direction)
    .orderBy('e.id', direction)
    .limit(q.limit)
    .execute();
}

export async function findEvents(db: Kysely<Database>, eventIds: readonly string[]): Promise<Array<{ id: string; partner_id: string; organization_id: string; event_type: string }>> {
  if (eventIds.length === 0) return [];
  return db.selectFrom('webhook_events').select(['id', 'partner_id', 'organization_id', 'event_type']).where('id', 'in', eventIds).execute();
}

/** Whether the organization enables the partner now (`erx org enable-partner`, until `disable-partner`). */
export async function isPartnerEnabledFor(db: Kysely<Database>, ids: { organizationId: string; partnerId: string }): Promise<boolean> {
  const row = await db
    .selectFrom('organization_partners')
    .select('partner_id')
    .where('organization_id', '=', ids.organizationId)
    .where('partner_id', '=', ids.partnerId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function listDeliveriesOfEvent(db: Kysely<Database>, eventId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'reason', 'requested_by', 'status', 'attempts_made', 'next_attempt_at', 'created_at', 'completed_at', 'ended_because'] satisfies Array<keyof WebhookDeliveriesTable>)
    .where('event_id', '=', eventId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listAttemptsOfEvent(db: Kysely<Database>, eventId: string) {
  return db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempt_number', 'started_at', 'duration_ms', 'outcome', 'status_code', 'response_body', 'detail', 'sent_by', 'address_guarded'] satisfies Array<keyof WebhookAttemptsTable>)
    .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId))
    .orderBy('started_at')
    .orderBy('attempt_number')
    .execute();
}

/** How many deliveries are pending (new or waiting to retry), and when the oldest of them was created. */
export async function summarizePendingDeliveries(db: Kysely<Database>): Promise<{ pending: number; oldestCreatedAt: string | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), oldestCreatedAt: row.oldest ?? null };
}
