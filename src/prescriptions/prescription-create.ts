// Creating a prescription, whichever surface asks (the API's test helper, the portal, an
// approved draft): the service writes it (prescriptions-service.ts); one the PDS is to take
// (electronic, or paper while a PDS is connected: an ETP paper script) is then sent to it,
// and the create waits for the answer up to ERX_PDS_WAIT_MS, so that a PDS that answers in
// time gives the SCID in the create's own answer (pds-submission.ts).
import { valueOrRefuse, type BodyRead, type SubmittedBody } from '../platform/http/body-validation.ts';
import { settleNewSubmission } from './pds-submission.ts';
import { viewOfPrescription } from './prescription-view.ts';
import type { Prescription } from './prescriptions-schemas.ts';
import {
  refusedAsResult,
  writePrescription,
  type AlongsideCreate,
  type PatientPath,
  type PrescribingCaller,
  type PrescribingResult,
  type PrescriptionsContext,
} from './prescriptions-service.ts';
import { findSubmissionColumns } from './prescriptions-store.ts';

/** Creates a prescription for the path patient (Active once the PDS accepted it, Pending while it is being sent; plain paper Active at once), prescribed by the path user; a refused body is a 422, a refused action a 409. */
export async function prescribe(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath, submitted: SubmittedBody): Promise<Prescription> {
  return valueOrRefuse(await readAndPrescribe(ctx, caller, ids, submitted));
}

/** As prescribe, for the portal: a refused body or action is its result (PrescribingResult). */
export async function prescribeOrRefuse(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath, submitted: SubmittedBody): Promise<PrescribingResult<Prescription>> {
  return refusedAsResult(() => readAndPrescribe(ctx, caller, ids, submitted));
}

/** The create path of every entry point: a refused body is returned as its field errors, a refused action (409) thrown. */
export async function readAndPrescribe(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath,
  submitted: SubmittedBody,
  alongside?: AlongsideCreate,
): Promise<BodyRead<Prescription>> {
  const written = await writePrescription(ctx, caller, ids, submitted, alongside);
  if (!written.ok) return written;
  const row = written.value;
  if (row.status !== 'Pending') return { ok: true, value: viewOfPrescription(row, ctx) };
  // Sent to the PDS: its answer, if it comes within ERX_PDS_WAIT_MS (the SCID, as a create always answered); else Pending.
  await settleNewSubmission(ctx, row.id);
  const settled = { ...row, ...(await findSubmissionColumns(ctx.db, row.id)) };
  return { ok: true, value: viewOfPrescription(settled, ctx) };
}
