// A pharmacy's dispense, in the sandbox: the sandbox PDS counts the supply (erx sandbox dispense,
// the test helper's route), then erx records what the PDS reports of the prescription's
// dispensing, its audit entry and the prescription.dispensed event (sent only to an endpoint
// that subscribes to it) in one transaction. The PDS refusing (no supply left, a cancelled or
// ceased script) is a 409 with its reason; a PDS that cannot be reached a 503, nothing changed.
import { auditRecords } from '../audit/index.ts';
import { requirePatient } from '../patients/index.ts';
import { ApiError, notFound } from '../platform/http/api-error.ts';
import { PDS_RETRY_AFTER_SECONDS } from './prescription-changes.ts';
import { recordPrescriptionEvent } from './prescription-events.ts';
import { dispensingOf } from './prescription-view.ts';
import type { Dispensing } from './prescriptions-schemas.ts';
import { readScid, type PrescriptionsContext } from './prescriptions-service.ts';
import { findPrescriptionByScid, updatePrescriptionInStatus } from './prescriptions-store.ts';

/** Dispenses the next supply of the prescription with this SCID (within `organizationId`; undefined: any, the operator's command). */
export async function dispenseInSandbox(ctx: PrescriptionsContext, scidText: string, organizationId?: string): Promise<{ scid: string; organization_id: string; dispensing: Dispensing }> {
  const scid = readScid(scidText);
  if (!ctx.pdsSandbox) throw new ApiError('CONFLICT', 'Only the sandbox PDS (ERX_PDS=simulator) can be asked to dispense');
  const found = await findPrescriptionByScid(ctx.db, scid, organizationId);
  // An ETP paper script is dispensed at the PDS too: the pharmacy scans its SCID.
  if (!found || found.scid === null) throw notFound(`No prescription with SCID ${scid} at the PDS`);
  const at = ctx.clock.now().toISOString();
  const answer = await ctx.pdsSandbox.dispense(found.scid, at);
  if (!answer.ok && answer.outcome === 'refused') throw new ApiError('CONFLICT', `The Prescription Delivery Service refused the dispense of ${found.scid}: ${answer.message} (${answer.code})`);
  if (!answer.ok) throw new ApiError('SERVICE_UNAVAILABLE', `The Prescription Delivery Service cannot be reached (${answer.detail})`, undefined, { 'retry-after': String(PDS_RETRY_AFTER_SECONDS) });
  const patient = await requirePatient(ctx.patients, found.organization_id, found.patient_id);
  const columns = { supplies_dispensed: answer.suppliesDispensed, repeats_remaining: answer.repeatsRemaining, last_dispensed_at: answer.lastDispensedAt, updated_at: at };
  await ctx.unitOfWork.run(async (work) => {
    await updatePrescriptionInStatus(work.trx, found.id, found.status as 'Active', columns);
    work.record(auditRecords, { action: 'prescription.dispense', organizationId: found.organization_id, patientId: found.patient_id, scid: found.scid, detail: { count: answer.suppliesDispensed } });
    await recordPrescriptionEvent(ctx, work, 'dispense', { patient, actorId: found.prescriber_user_id, scid: found.scid!, reserved: {} });
  });
  return { scid: found.scid, organization_id: found.organization_id, dispensing: dispensingOf({ ...found, ...columns }) };
}
