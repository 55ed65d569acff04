// Submitting a prescription to the PDS: a durable job after the create's commit (DESIGN
// decisions 24 and 25), never a call inside a transaction. An attempt loads the prescription's
// legal content, submits it with erx's unique id as the idempotency key, then commits what the
// PDS answered, fenced by the job's lease: accepted, the prescription becomes Active with the
// PDS's SCID and its prescription.create audit entry, prescription.created event and token
// message are written; refused, it becomes
// Error with the PDS's reason; unreachable, the job is tried again later, until its deadline
// (ERX_PDS_BUDGET_MS), past which it becomes Error. A crash anywhere leaves the job pending;
// the next claim submits the same unique id again and the PDS answers with the same SCID, so
// the PDS holds exactly one script.
import { auditRecords } from '../audit/index.ts';
import { requirePatient, type PatientRow } from '../patients/index.ts';
import type { PdsResult, PdsAccepted, PdsSubmission } from '../pds/index.ts';
import { readPrescriptionLegalContent, type PrescriptionLegalContent } from './prescription-legal-content.ts';
import { recordPrescriptionAction } from './prescription-events.ts';
import type { StoredEventMetadata } from './pds-submission-outbox.ts';
import { recordTokenMessage } from './prescription-token-message.ts';
import { claimDueSubmissions, recordSubmissionOutcomeIfFenced, submissionLeaseMs } from './pds-submission-lease.ts';
import { findNextSubmissionAttempt, findPdsSubmission, type PdsSubmissionRow } from './pds-submission-store.ts';
import type { ReservedValues } from './prescription-events.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';
export type { PdsSettings } from './pds-settings.ts';
import { findPrescriptionById, updatePrescriptionInStatus } from './prescriptions-store.ts';
import { nameApprovedDraftsBySCID } from './prescription-drafts-store.ts';


/** The wait before the next attempt while the PDS cannot be reached: 1 s, 2 s, 4 s... at most 60 s. */
export function retryDelayMs(attemptsMade: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, attemptsMade - 1));
}

export function submissionOf(content: PrescriptionLegalContent): PdsSubmission {
  return {
    uniqueId: content.uniqueId,
    patient: { ihi: content.patient.ihi, name: content.patient.name, dateOfBirth: content.patient.dateOfBirth },
    repeats: Number(content.medicine.repeats),
    paperScript: content.prescriptionType === 'PAPER',
    content: content as unknown as Record<string, unknown>,
  };
}

type Answer = PdsResult<PdsAccepted> | { ok: false; outcome: 'gone' };

/** Commits what the PDS answered for `job`, if this claim still holds it; true when the job settled. */
async function commitAnswer(ctx: PrescriptionsContext, job: PdsSubmissionRow, answer: Answer, patient: PatientRow | undefined): Promise<boolean> {
  const at = ctx.clock.now();
  const now = at.toISOString();
  const attempts = Number(job.attempts_made) + 1;
  const fence = Number(job.fencing_token);
  return ctx.unitOfWork.run(async (work) => {
    const prescription = await findPrescriptionById(work.trx, job.organization_id, job.id);
    const audit = (outcome: 'success' | 'error', reason?: string, scid?: string) =>
      work.record(auditRecords, { action: 'prescription.pds_submit', outcome, organizationId: job.organization_id, patientId: prescription?.patient_id ?? null, scid: scid ?? null, detail: { subjectId: job.id, reason } });
    if (answer.ok) {
      if (!(await recordSubmissionOutcomeIfFenced(work.trx, job.id, fence, { status: 'accepted', attempts_made: attempts, completed_at: now, last_error: null }))) return false;
      if (!prescription || !patient) return true;
      const columns = { status: 'Active' as const, scid: answer.scid, updated_at: now, supplies_dispensed: 0, repeats_remaining: Number(prescription.number_of_repeats_authorised), last_dispensed_at: null };
      // No longer Pending (a choice of paper fences the job off first: withdrawnScriptCancelled below).
      if (!(await updatePrescriptionInStatus(work.trx, job.id, 'Pending', columns))) return true;
      await nameApprovedDraftsBySCID(work.trx, job.id, answer.scid);
      const { acting_partner_id: actingPartnerId = null, ...reserved } = JSON.parse(job.event_metadata) as StoredEventMetadata;
      // The create's audit entry and event name the SCID: they are written now (in the create's request when the PDS answered within its wait).
      await recordPrescriptionAction(ctx, work, 'create', { patient, actorId: prescription.prescriber_user_id, scid: answer.scid, reserved, actingPartnerId });
      // A paper script is handed to the patient: it has no token to send (and no delivery).
      if (prescription.prescription_type === 'ELECTRONIC') recordTokenMessage(ctx, work, { ...prescription, ...columns });
      return true;
    }
    if (answer.outcome === 'unreachable' && at.getTime() + retryDelayMs(attempts) <= Date.parse(job.deadline_at)) {
      const next = new Date(at.getTime() + retryDelayMs(attempts)).toISOString();
      if (!(await recordSubmissionOutcomeIfFenced(work.trx, job.id, fence, { attempts_made: attempts, next_attempt_at: next, last_error: answer.detail }))) return false;
      audit('error', 'unreachable');
      return false;
    }
    const description =
      answer.outcome === 'refused'
        ? `The Prescription Delivery Service refused the prescription: ${answer.message} (${answer.code})`
        : answer.outcome === 'gone'
          ? 'The prescription was withdrawn before the Prescription Delivery Service took it'
          : `The Prescription Delivery Service could not be reached before the submission's time ran out (last: ${answer.detail}); write the prescription again, or on paper`;
    const status = answer.outcome === 'refused' ? 'refused' : answer.outcome === 'gone' ? 'withdrawn' : 'expired';
    if (!(await recordSubmissionOutcomeIfFenced(work.trx, job.id, fence, { status, attempts_made: attempts, completed_at: now, last_error: description }))) return false;
    audit('error', answer.outcome === 'refused' ? answer.code : answer.outcome);
    await updatePrescriptionInStatus(work.trx, job.id, 'Pending', { status: 'Error', error_description: description, updated_at: now });
    return true;
  });
}

/** One attempt of a claimed job: submit, then commit the answer under the claim's fence. */
export async function attemptSubmission(ctx: PrescriptionsContext, job: PdsSubmissionRow): Promise<void> {
  const pds = ctx.pds;
  const prescription = await findPrescriptionById(ctx.db, job.organization_id, job.id);
  let answer: Answer = { ok: false, outcome: 'gone' };
  // Read before the transaction: on SQLite one connection serves it, and a read beside it would wait for it.
  const patient = prescription ? await requirePatient(ctx.patients, job.organization_id, prescription.patient_id) : undefined;
  if (prescription?.status === 'Pending' && patient) {
    answer = await pds.port.submit(submissionOf(readPrescriptionLegalContent(ctx, prescription, patient)));
    if (answer.ok) pds.afterAccepted?.();
  }
  if (await commitAnswer(ctx, job, answer, patient)) pds.outbox.events.emit('settled', job.id);
  else if (answer.ok) await cancelWithdrawnScript(ctx, job, answer.scid);
}

/**
 * The PDS took a submission whose prescription was written on paper meanwhile (the attempt's
 * lease ran out, and the choice of paper withdrew the job and fenced it off): the script at
 * the PDS is cancelled, so the prescription stays paper alone. Audited either way; a refused or
 * failed cancel is logged for the operator (docs/operators/pds.md).
 */
async function cancelWithdrawnScript(ctx: PrescriptionsContext, job: PdsSubmissionRow, scid: string): Promise<void> {
  if ((await findPdsSubmission(ctx.db, job.id))?.status !== 'withdrawn') return;
  const answer = await ctx.pds.port.cancel(scid);
  const reason = answer.ok ? 'withdrawn: cancelled at the PDS' : `withdrawn: the cancel at the PDS failed (${answer.outcome === 'refused' ? answer.code : answer.reason})`;
  if (!answer.ok) ctx.pds.logger.error({ prescriptionId: job.id, scid }, 'a script the PDS took after its prescription was written on paper could not be cancelled there: cancel it by hand');
  await ctx.audit.noteAccess({ action: 'prescription.pds_submit', outcome: 'error', organizationId: job.organization_id, scid, detail: { subjectId: job.id, reason } });
}

function claimOf(ctx: PrescriptionsContext, limit: number, id?: string) {
  const now = ctx.clock.now();
  return { now: now.toISOString(), owner: ctx.pds.runnerId, leaseExpiresAt: new Date(now.getTime() + submissionLeaseMs(ctx.pds.timeoutMs)).toISOString(), limit, id };
}

function track(ctx: PrescriptionsContext, attempt: Promise<void>): Promise<void> {
  const guarded = attempt.catch((error: unknown) => ctx.pds.logger.error({ err: error }, 'PDS submission attempt failed; it is tried again once its lease ends'));
  ctx.pds.inFlight.add(guarded);
  void guarded.finally(() => ctx.pds.inFlight.delete(guarded));
  return guarded;
}

/**
 * A create's own first attempt, waited for up to ERX_PDS_WAIT_MS: a PDS that answers in time
 * gives the create its SCID. Past the wait the attempt goes on; the create answers Pending.
 */
export async function settleNewSubmission(ctx: PrescriptionsContext, prescriptionId: string): Promise<void> {
  // Listen first: the runner, woken by the create's commit, may claim the job before the create does.
  const settled = settledHere(ctx, prescriptionId);
  const [job] = await claimDueSubmissions(ctx.db, claimOf(ctx, 1, prescriptionId));
  const attempt = job ? track(ctx, attemptSubmission(ctx, job)) : settled.promise;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ctx.pds.waitMs)));
  await Promise.race([attempt, waited]);
  clearTimeout(timer);
  settled.stop();
}

/** Resolves when this process settles the prescription's submission (whoever claimed it here). */
function settledHere(ctx: PrescriptionsContext, prescriptionId: string): { promise: Promise<void>; stop(): void } {
  const events = ctx.pds.outbox.events;
  let listener: ((id: string) => void) | undefined;
  const promise = new Promise<void>((resolve) => {
    listener = (id: string) => {
      if (id === prescriptionId) resolve();
    };
    events.on('settled', listener);
  });
  return { promise, stop: () => events.off('settled', listener!) };
}

/** Claims what is due and attempts it, a few at a time, until nothing due is left; when the earliest retry is due, if any. */
export async function runDueSubmissions(ctx: PrescriptionsContext, batch = 8): Promise<Date | undefined> {
  for (;;) {
    const jobs = await claimDueSubmissions(ctx.db, claimOf(ctx, batch));
    if (jobs.length === 0) return findNextSubmissionAttempt(ctx.db, ctx.clock.now().toISOString());
    await Promise.all(jobs.map((job) => track(ctx, attemptSubmission(ctx, job))));
  }
}
