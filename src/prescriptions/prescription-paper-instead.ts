// Paper instead (issue 40 item 5): while the PDS cannot be reached, the prescriber of a Pending
// prescription (electronic, or a paper script waiting for its SCID) may write it on plain paper
// instead. In one transaction its submission is withdrawn and it becomes PAPER (without a SCID)
// and Active for its whole life, its create's audit entry and event written then (as on the
// PDS's acceptance): a prescription is paper or electronic, never both (DESIGN
// decision 25). A submission already accepted, or being attempted at this moment (a live
// lease), refuses the choice; an attempt whose lease ran out is fenced off by the withdrawal,
// and should the PDS have taken it all the same, the job cancels that script (pds-submission.ts).
import type { Kysely } from 'kysely';
import { auditRecords } from '../audit/index.ts';
import type { PatientRow } from '../patients/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { StoredEventMetadata } from './pds-submission-outbox.ts';
import { recordPrescriptionAction } from './prescription-events.ts';
import { requirePrescription } from './prescription-reads.ts';
import { viewOfPrescription } from './prescription-view.ts';
import type { Prescription } from './prescriptions-schemas.ts';
import { findPdsSubmission, withdrawPdsSubmission } from './pds-submission-store.ts';
import { readScid, refusedAsResult, requirePrescriberAndPatient, requireReadyPrescriber, type PatientPath, type PrescribingCaller, type PrescribingResult, type PrescriptionsContext } from './prescriptions-service.ts';
import { updatePrescriptionInStatus, type PrescriptionRow } from './prescriptions-store.ts';

const refuse = (detail: string): never => {
  throw new ApiError('CONFLICT', detail);
};

/**
 * Before anything is written: only a Pending prescription (electronic, or a paper script
 * waiting for its SCID), by the prescriber who wrote it (a paper script bears their name and
 * signature).
 */
function refuseUnlessPending(found: PrescriptionRow, actorId: string): void {
  const reference = found.scid ?? found.id;
  if (found.status !== 'Pending') {
    if (found.prescription_type === 'PAPER' && found.scid === null) refuse(`Prescription ${reference} is already a paper prescription`);
    const accepted = `: the Prescription Delivery Service accepted it (SCID ${found.scid})`;
    const taken = found.scid === null ? '' : found.prescription_type === 'PAPER' ? `${accepted}; print its PDF, which carries the SCID` : `${accepted}, so it is an electronic prescription and cannot also be written on paper`;
    refuse(`Prescription ${reference} is ${found.status}, not being sent${taken}`);
  }
  if (found.prescriber_user_id !== actorId) refuse(`Prescription ${reference} can be written on paper only by its own prescriber, who signs it`);
}

/** Inside the transaction, when the withdrawal took nothing: why, from the submission as it is now. */
async function refuseTakenSubmission(trx: Kysely<Database>, found: PrescriptionRow, at: string): Promise<never> {
  const job = await findPdsSubmission(trx, found.id);
  if (job?.status === 'accepted') return refuse(`The Prescription Delivery Service has just accepted prescription ${found.id}: it is an electronic prescription now and cannot also be written on paper. Read it again to see its SCID`);
  if (job?.status === 'pending' && job.lease_expires_at !== null && job.lease_expires_at > at) {
    return refuse(`Prescription ${found.id} is being sent to the Prescription Delivery Service at this moment; wait a few seconds and look again: if it was accepted it is electronic, otherwise you can still write it on paper`);
  }
  return refuse(`Prescription ${found.id} is no longer being sent (its submission is ${job?.status ?? 'gone'}); read it again`);
}

/** The withdrawal and the change to paper, with their audit entries and the create's event. */
async function withdrawAndWritePaper(ctx: PrescriptionsContext, found: PrescriptionRow, patient: PatientRow, actorId: string): Promise<PrescriptionRow> {
  const at = ctx.clock.now().toISOString();
  const noDelivery = { delivery_method: null, delivery_recipient_type: null, delivery_destination_encrypted: null, delivery_pharmacy_id: null, delivery_pharmacy_name: null };
  const columns = { prescription_type: 'PAPER' as const, status: 'Active' as const, updated_at: at, updated_by_user_id: actorId, ...noDelivery };
  await ctx.unitOfWork.run(async (work) => {
    const job = await findPdsSubmission(work.trx, found.id);
    if (!(await withdrawPdsSubmission(work.trx, found.id, at))) await refuseTakenSubmission(work.trx, found, at);
    if (!(await updatePrescriptionInStatus(work.trx, found.id, 'Pending', columns))) refuse(`Prescription ${found.id} changed while this request was handled; read it again`);
    const entry = { organizationId: found.organization_id, patientId: found.patient_id, scid: found.id, targetUserId: actorId };
    work.record(auditRecords, { action: 'prescription.paper_instead', ...entry, detail: { subjectId: found.id } });
    // The create's event as the job would have sent it: the reserved values go to the partner that acted then.
    const { acting_partner_id: actingPartnerId = null, ...reserved } = JSON.parse(job?.event_metadata ?? '{}') as StoredEventMetadata;
    await recordPrescriptionAction(ctx, work, 'create', { patient, actorId, scid: found.id, reserved, actingPartnerId });
  });
  return { ...found, ...columns };
}

/**
 * Writes the path's Pending prescription on paper instead, for the portal: done (the
 * prescription as it is now), or refused saying why (409: not Pending, paper already, another
 * prescriber's, the PDS took it or is taking it), noted in the audit trail.
 */
export async function writeOnPaperInstead(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath & { scid: string }): Promise<PrescribingResult<Prescription>> {
  const scid = readScid(ids.scid);
  const { prescriber, patient } = await requirePrescriberAndPatient(ctx, caller, ids);
  const found = await requirePrescription(ctx, patient, scid);
  return refusedAsResult(async () => {
    try {
      requireReadyPrescriber(prescriber);
      refuseUnlessPending(found, prescriber.user_id);
      return { ok: true, value: viewOfPrescription(await withdrawAndWritePaper(ctx, found, patient, prescriber.user_id), ctx) };
    } catch (error) {
      if (error instanceof ApiError && error.code === 'CONFLICT') {
        await ctx.audit.noteAccess({ action: 'prescription.paper_instead', outcome: 'refused', organizationId: patient.organization_id, patientId: patient.id, scid: found.scid ?? found.id, targetUserId: prescriber.user_id, detail: { reason: error.code } });
      }
      throw error;
    }
  });
}
