// What a prescription's lifecycle action leaves beside its own rows, with the unit of work the
// change runs in (so each exists exactly when the change committed): its audit entry, always,
// and the event in the webhook outbox. The event belongs to the partner that created the
// patient, and is written only once that partner has validated the organization: the spec
// sends no events before validate.
import { auditRecords, type AuditTrail } from '../audit/index.ts';
import type { Clock } from '../platform/clock.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { Work } from '../platform/db/unit-of-work.ts';
import { eventMetadata, newEventId, recordEvent } from '../webhooks/index.ts';
import { transitionOf, type PrescriptionAction } from './prescription-lifecycle.ts';
import { isOrganizationValidatedBy } from './prescriptions-store.ts';
import { DISPENSED_EVENT, isEventTypeSubscribed } from '../webhooks/index.ts';

/** reserved_1..3 as the caller passed them (a test helper's body; later an SSO redirect_path). */
export interface ReservedValues {
  reserved_1?: string | null;
  reserved_2?: string | null;
  reserved_3?: string | null;
}

export interface PrescriptionEventFacts {
  patient: { id: string; organization_id: string; partner_id: string; partner_patient_id: string };
  /** The prescriber who acted. */
  actorId: string;
  scid: string;
  reserved: ReservedValues;
}

/**
 * Records `action` with `work`: its audit entry (who acted comes from the request's scope), and
 * its event when the patient's partner has validated the organization. Creating and every
 * change of every surface (API, test helpers, portal) come through here.
 */
export async function recordPrescriptionAction(ctx: { clock: Clock }, work: Work, action: PrescriptionAction, facts: PrescriptionEventFacts): Promise<void> {
  recordPrescriptionAudit(work, action, facts);
  await recordPrescriptionEvent(ctx, work, action, facts);
}

/** The audit entry of `action` alone: a create that waits for the PDS records it when written, its event once accepted. */
export function recordPrescriptionAudit(work: Work, action: PrescriptionAction, facts: Omit<PrescriptionEventFacts, 'scid' | 'reserved'> & { scid: string | null }): void {
  const { patient, scid } = facts;
  // The target user is the prescriber acted as (the path's user), who may not be the caller the scope names.
  work.record(auditRecords, { action: transitionOf(action).audit, organizationId: patient.organization_id, patientId: patient.id, scid, targetUserId: facts.actorId });
}

/** The event of `action` alone, when the patient's partner has validated the organization. */
export async function recordPrescriptionEvent(ctx: { clock: Clock }, work: Work, action: PrescriptionAction | 'dispense', facts: PrescriptionEventFacts): Promise<void> {
  const { patient } = facts;
  const transition = action === 'dispense' ? { event: DISPENSED_EVENT } : transitionOf(action);
  if (!(await isOrganizationValidatedBy(work.trx, patient.organization_id, patient.partner_id))) return;
  // An event beyond the vendor's four goes only to a partner whose endpoint subscribes to it.
  if (!(await isEventTypeSubscribed(work.trx, patient.partner_id, transition.event))) return;
  recordEvent(work, {
    event_id: newEventId(),
    event_type: transition.event,
    timestamp: ctx.clock.now().toISOString(),
    partner_id: patient.partner_id,
    organization_id: patient.organization_id,
    data: { patient_id: patient.id, partner_patient_id: patient.partner_patient_id, user_id: facts.actorId, scid: facts.scid },
    metadata: eventMetadata(facts.reserved),
  });
}

/**
 * A create or change the lifecycle or the prescriber's readiness refused (409): noted as
 * refused, as it rolled back and left nothing else. Other errors are not the caller's refusal
 * of a state and are left to their own records.
 */
export async function noteRefusedAction(
  ctx: { audit: AuditTrail },
  action: PrescriptionAction,
  target: { patient: { id: string; organization_id: string }; scid?: string; prescriberId: string },
  error: unknown,
): Promise<void> {
  if (!(error instanceof ApiError) || error.code !== 'CONFLICT') return;
  const { patient, scid, prescriberId } = target;
  const event = { action: transitionOf(action).audit, outcome: 'refused', organizationId: patient.organization_id, patientId: patient.id, scid } as const;
  await ctx.audit.noteAccess({ ...event, targetUserId: prescriberId, detail: { reason: error.code } });
}
