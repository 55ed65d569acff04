// The event a prescription change writes into the webhook outbox, inside the change's own
// transaction (so it exists exactly when the change committed). It belongs to the partner
// that created the patient, and is written only once that partner has validated the
// organization: the spec sends no events before validate.
import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { eventMetadata, newEventId, type EventType, recordEvent, type WebhooksContext } from '../webhooks/index.ts';
import { isOrganizationValidatedBy } from './prescriptions-store.ts';

/** reserved_1..3 as the caller passed them (a test helper's body; later an SSO redirect_path). */
export interface ReservedValues {
  reserved_1?: string | null;
  reserved_2?: string | null;
  reserved_3?: string | null;
}

export interface PrescriptionEventFacts {
  type: EventType;
  patient: { id: string; organization_id: string; partner_id: string; partner_patient_id: string };
  /** The prescriber who acted. */
  actorId: string;
  scid: string;
  reserved: ReservedValues;
}

/** Writes the event with `trx` when the patient's partner has validated the organization; returns whether it did. */
export async function recordPrescriptionEvent(
  ctx: { webhooks: WebhooksContext; clock: Clock },
  trx: Kysely<Database>,
  facts: PrescriptionEventFacts,
): Promise<boolean> {
  const { patient } = facts;
  if (!(await isOrganizationValidatedBy(trx, patient.organization_id, patient.partner_id))) return false;
  await recordEvent(ctx.webhooks, trx, {
    event_id: newEventId(),
    event_type: facts.type,
    timestamp: ctx.clock.now().toISOString(),
    partner_id: patient.partner_id,
    organization_id: patient.organization_id,
    data: { patient_id: patient.id, partner_patient_id: patient.partner_patient_id, user_id: facts.actorId, scid: facts.scid },
    metadata: eventMetadata(facts.reserved),
  });
  return true;
}
