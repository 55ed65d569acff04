// Which event types a partner's endpoint receives. The vendor's four are the default, so no
// partner receives a type it does not know; a partner (or the operator for it) subscribes to
// more, today prescription.dispensed (issue 40). An event of a type the partner does not
// receive is not written for it at all (prescription-events.ts asks here in the change's
// transaction), so neither its deliveries nor its event feed show it.
import type { Kysely } from 'kysely';
import { auditRecords } from '../audit/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { webhookAction, WebhooksError, type WebhookActor, type WebhooksContext } from './webhooks-service.ts';

export const DISPENSED_EVENT = 'prescription.dispensed' as const;

/** The vendor's events: what every endpoint receives unless it says otherwise. */
export const VENDOR_EVENT_TYPES = ['prescription.created', 'prescription.ceased', 'prescription.cancelled', 'prescription.reissued'] as const;

/** Every type an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly string[] = [...VENDOR_EVENT_TYPES, DISPENSED_EVENT];

function typesOf(stored: string | null): readonly string[] {
  return stored === null ? VENDOR_EVENT_TYPES : (JSON.parse(stored) as string[]);
}

/** The event types the partner's endpoint receives. */
export async function readSubscribedEventTypes(db: Kysely<Database>, partnerId: string): Promise<readonly string[]> {
  const row = await db.selectFrom('partners').select('webhook_event_types').where('id', '=', partnerId).executeTakeFirst();
  return typesOf(row?.webhook_event_types ?? null);
}

export async function isEventTypeSubscribed(db: Kysely<Database>, partnerId: string, eventType: string): Promise<boolean> {
  return (await readSubscribedEventTypes(db, partnerId)).includes(eventType);
}

/** The list as given, checked: known types only, at least one, no repeats (sorted in the catalogue's order). */
export function readEventTypeList(types: readonly string[]): string[] {
  const unknown = types.filter((type) => !SUBSCRIBABLE_EVENT_TYPES.includes(type));
  if (unknown.length > 0) throw new WebhooksError(`unknown event types: ${unknown.join(', ')} (known: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')})`);
  if (types.length === 0) throw new WebhooksError(`event_types must name at least one of: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`);
  return SUBSCRIBABLE_EVENT_TYPES.filter((type) => types.includes(type));
}

/** Sets the event types the partner's endpoint receives (audited, as the partner or the operator). */
export async function setSubscribedEventTypes(ctx: WebhooksContext, partnerId: string, types: readonly string[], by: WebhookActor = 'operator'): Promise<{ partner_id: string; event_types: string[] }> {
  const chosen = readEventTypeList(types);
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    const result = await trx.updateTable('partners').set({ webhook_event_types: JSON.stringify(chosen) }).where('id', '=', partnerId).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new WebhooksError(`partner ${partnerId} not found`);
    record(auditRecords, { action: webhookAction(by, 'webhook_event_types_set'), detail: { partnerId, count: chosen.length } });
  });
  return { partner_id: partnerId, event_types: chosen };
}
