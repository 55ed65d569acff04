// The event a prescription change records in the webhook outbox, with the unit of work the
// change runs in (so it exists exactly when the change committed). It belongs to the partner
// that created the patient, and is written only once that partner has validated the
// organization: the spec sends no events before validate.
import type { Clock } from '../platform/clock.ts';
import type { Work } from '../platform/db/unit-of-work.ts';
import { eventMetadata, newEventId, type EventType, recordEvent } from '../webhooks/index.ts';
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

/** Records the event with `work` when the patient's partner has validated the organization. */
export async function recordPrescriptionEvent(ctx: { clock: Clock }, work: Work, facts: PrescriptionEventFacts): Promise<void> {
  const { patient } = facts;
  if (!(await isOrganizationValidatedBy(work.trx, patient.organization_id, patient.partner_id))) return;
  recordEvent(work, {
    event_id: newEventId(),
    event_type: facts.type,
    timestamp: ctx.clock.now().toISOString(),
    partner_id: patient.partner_id,
    organization_id: patient.organization_id,
    data: { patient_id: patient.id, partner_patient_id: patient.partner_patient_id, user_id: facts.actorId, scid: facts.scid },
    metadata: eventMetadata(facts.reserved),
  });
}
