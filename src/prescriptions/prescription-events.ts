// What a prescription's lifecycle action leaves beside its own rows, with the unit of work the
// change runs in (so each exists exactly when the change committed): its audit entry, always,
// and the event in the webhook outbox. The event goes to the partner that created the patient
// and, when another partner of the organization acted (its token, or the portal session its SSO
// link opened), to that partner too; each only once it has validated the organization (the
// spec sends no events before validate). reserved_1..3 are the acting partner's own values
// (its request or its SSO link): only its event carries them, never another partner's.
import { auditRecords, currentAuditScope, type AuditTrail } from '../audit/index.ts';
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
  /** The partner whose request (or SSO link) carried `reserved`; absent: the one the current scope names (null: none, erx's own work). */
  actingPartnerId?: string | null;
}

/** The partner the current request or page acts through; null outside any (a runner, a seed). */
export function actingPartnerOfScope(): string | null {
  const actor = currentAuditScope()?.actor;
  return actor !== undefined && (actor.kind === 'user' || actor.kind === 'partner') ? actor.partnerId : null;
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

/**
 * The event of `action` alone, for the patient's partner and the acting partner, each once it
 * has validated the organization. With no acting partner known, the reserved values go to no one:
 * whose they are cannot be told, and they must never reach a partner they are not from.
 */
export async function recordPrescriptionEvent(ctx: { clock: Clock }, work: Work, action: PrescriptionAction | 'dispense', facts: PrescriptionEventFacts): Promise<void> {
  const { patient } = facts;
  const transition = action === 'dispense' ? { event: DISPENSED_EVENT } : transitionOf(action);
  const acting = facts.actingPartnerId !== undefined ? facts.actingPartnerId : actingPartnerOfScope();
  for (const partnerId of new Set([patient.partner_id, ...(acting === null ? [] : [acting])])) {
    if (!(await isOrganizationValidatedBy(work.trx, patient.organization_id, partnerId))) continue;
    // An event beyond the vendor's four goes only to a partner whose endpoint subscribes to it.
    if (!(await isEventTypeSubscribed(work.trx, partnerId, transition.event))) continue;
    recordEvent(work, {
      event_id: newEventId(),
      event_type: transition.event,
      timestamp: ctx.clock.now().toISOString(),
      partner_id: partnerId,
      organization_id: patient.organization_id,
      data: { patient_id: patient.id, partner_patient_id: patient.partner_patient_id, user_id: facts.actorId, scid: facts.scid },
      metadata: partnerId === acting ? eventMetadata(facts.reserved) : eventMetadata(),
    });
  }
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
