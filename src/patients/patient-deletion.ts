// Delete patient: the patient leaves every read and its partner_patient_id is free for a new
// patient, while the row stays (deleted_at set) for the prescriptions that refer to it. Refused
// (409) while one of them is Active. Idempotent: a patient that is not there, or no longer,
// answers the same 200 and nothing changes (and nothing is recorded: no patient was touched).
import { auditRecords } from '../audit/index.ts';
import type { Principal } from '../auth/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import { isUuid } from '../platform/ids.ts';
import { requireOrganizationUser } from '../users/index.ts';
import type { PatientsContext } from './patients-service.ts';
import { findActivePrescriptionScids, markPatientDeleted } from './patients-store.ts';

/** The 409 names at most this many of the Active prescriptions. */
const ACTIVE_SCIDS_NAMED = 5;

function activePrescriptionsConflict(scids: string[]): ApiError {
  const named = scids.slice(0, ACTIVE_SCIDS_NAMED).join(', ');
  const more = scids.length > ACTIVE_SCIDS_NAMED ? ' and more' : '';
  return new ApiError('CONFLICT', `The patient has Active prescriptions (${named}${more}); cease or cancel them before deleting the patient`);
}

/** Answers the id it was asked to delete (the vendor's envelope never carries a null `data`). */
export async function deletePatient(ctx: PatientsContext, principal: Principal, ids: { userId: string; patientId: string }): Promise<{ patient_id: string }> {
  await requireOrganizationUser(ctx.users, principal, ids.userId);
  const patientId = ids.patientId.toLowerCase();
  if (!isUuid(patientId)) return { patient_id: patientId };
  const stamp = { deleted_at: ctx.clock.now().toISOString(), deleted_by_user_id: principal.userId };
  try {
    await ctx.unitOfWork.run(async ({ trx, record }) => {
      // Marked first: on PostgreSQL that locks the row, so a prescription being added waits
      // (requirePatientStillLive) or has committed and is counted here.
      if (!(await markPatientDeleted(trx, principal.organizationId, patientId, stamp))) return;
      const active = await findActivePrescriptionScids(trx, principal.organizationId, patientId, ACTIVE_SCIDS_NAMED + 1);
      if (active.length > 0) throw activePrescriptionsConflict(active);
      record(auditRecords, { action: 'patient.delete', patientId });
    });
  } catch (error) {
    // The refusal rolled the deletion (and its entry) back: the attempt is still worth recording.
    if (error instanceof ApiError && error.code === 'CONFLICT') {
      await ctx.audit.noteAccess({ action: 'patient.delete', outcome: 'refused', patientId, detail: { reason: 'CONFLICT' } });
    }
    throw error;
  }
  return { patient_id: patientId };
}
