// Ceasing, cancelling and reissuing a prescription: the path names the prescriber who acts,
// the patient and the SCID (400 for one that is not 18 letters and digits, then 404s), the optional body is judged
// (422), then the acting user's readiness and the lifecycle table decide (409, noted in the
// audit trail as refused). The change, its event and its audit entry are written in one
// transaction.
import type { Kysely } from 'kysely';
import { contactOfPatient, type PatientRow } from '../patients/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError, type ValidationIssue } from '../platform/http/api-error.ts';
import { bodyFields, readBody, valueOrRefuse, type BodyRead, type SubmittedBody } from '../platform/http/body-validation.ts';
import { deliveryInputOf, resolveDelivery, sealedDeliveryOf, type DeliveryColumns } from './prescription-delivery.ts';
import { noteRefusedAction, recordPrescriptionAction } from './prescription-events.ts';
import { planTransition, TRANSITIONS, type PrescriptionChange, type PrescriptionStatus } from './prescription-lifecycle.ts';
import { requirePrescription } from './prescription-reads.ts';
import { recordTokenMessage } from './prescription-token-message.ts';
import { viewOfPrescription } from './prescription-view.ts';
import { ReissueBody, type Prescription } from './prescriptions-schemas.ts';
import {
  readScid,
  refusedAsResult,
  requirePrescriberAndPatient,
  requireReadyPrescriber,
  reservedOf,
  type PatientPath,
  type PrescribingCaller,
  type PrescribingResult,
  type PrescriptionsContext,
} from './prescriptions-service.ts';
import { findPrescriptionOfPatient, updatePrescriptionInStatus, type PrescriptionRow } from './prescriptions-store.ts';

export type { PrescriptionChange };

/** These bodies are optional: none at all reads as an empty one. */
function presentBody(submitted: SubmittedBody): SubmittedBody {
  return submitted.value === undefined ? { value: {}, issues: [] } : submitted;
}

/** A reissue's delivery: the one sent, or the current one again, to the patient's address as it is now. */
function judgeReissueDelivery(ctx: PrescriptionsContext, body: SubmittedBody, current: PrescriptionRow, patient: PatientRow): { columns?: DeliveryColumns; issues: ValidationIssue[] } {
  const sent = bodyFields(body).delivery;
  return resolveDelivery(sent === undefined ? deliveryInputOf(current) : sent, contactOfPatient(ctx.patients, patient));
}

/** Inside the transaction: the prescription changed after it was read (another request won); 409 with its status now. */
async function refuseChangedMeanwhile(trx: Kysely<Database>, found: PrescriptionRow, action: PrescriptionChange): Promise<never> {
  const reference = found.scid ?? found.id;
  const now = await findPrescriptionOfPatient(trx, found.organization_id, found.patient_id, reference);
  planTransition(action, (now?.status ?? null) as PrescriptionStatus | null, reference);
  throw new ApiError('CONFLICT', `Prescription ${reference} changed while this request was handled; read it and try again`);
}

/** How long a caller should wait before trying a change again while the PDS cannot be reached (Retry-After, seconds). */
export const PDS_RETRY_AFTER_SECONDS = 30;

const PDS_CALLS = { cease: 'cease', cancel: 'cancel', reissue: 'resendToken' } as const satisfies Record<PrescriptionChange, string>;

/**
 * The change of a prescription the PDS holds (electronic, or an ETP paper script: it has a SCID)
 * goes to the PDS first: only once it confirmed does erx change anything. Refused: 409 with the
 * PDS's reason; unreachable: 503 with Retry-After. Plain paper (no SCID) changes in erx alone.
 */
async function confirmWithPds(ctx: PrescriptionsContext, found: PrescriptionRow, action: PrescriptionChange): Promise<void> {
  if (found.scid === null) return;
  const answer = await ctx.pds.port[PDS_CALLS[action]](found.scid);
  if (answer.ok) return;
  const verb = TRANSITIONS[action].verb;
  if (answer.outcome === 'refused') {
    throw new ApiError('CONFLICT', `The Prescription Delivery Service refused: prescription ${found.scid} was not ${verb}: ${answer.message} (${answer.code})`);
  }
  throw new ApiError(
    'SERVICE_UNAVAILABLE',
    `The Prescription Delivery Service cannot be reached (${answer.detail}): prescription ${found.scid} was not ${verb} and nothing changed; try again later`,
    undefined,
    { 'retry-after': String(PDS_RETRY_AFTER_SECONDS) },
  );
}

/** A paper prescription was handed over on paper: there is no token to send again (409). */
function refusePaperReissue(found: PrescriptionRow, action: PrescriptionChange): void {
  if (action !== 'reissue' || found.prescription_type !== 'PAPER') return;
  throw new ApiError('CONFLICT', `Prescription ${found.scid ?? found.id} is a paper prescription: it has no token to send again. Print its PDF again from the portal if the patient needs another copy`);
}

interface Change {
  found: PrescriptionRow;
  patient: PatientRow;
  action: PrescriptionChange;
  /** The prescriber who acts. */
  actorId: string;
  columns: Partial<PrescriptionRow>;
}

/** The change, only while the prescription still has the status it was read with, its event and its audit entry. */
async function applyChange(ctx: PrescriptionsContext, change: Change, reserved: ReturnType<typeof reservedOf>): Promise<void> {
  const { found, patient, action, actorId, columns } = change;
  await ctx.unitOfWork.run(async (work) => {
    if (!(await updatePrescriptionInStatus(work.trx, found.id, found.status, columns))) await refuseChangedMeanwhile(work.trx, found, action);
    await recordPrescriptionAction(ctx, work, action, { patient, actorId, scid: found.scid ?? found.id, reserved });
    // A reissue sends the token again, to the delivery as it is now.
    if (action === 'reissue') recordTokenMessage(ctx, work, { ...found, ...columns });
  });
}

/** Makes the change; a refused body is a 422, a refused change a 409. */
export async function changePrescription(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath & { scid: string },
  action: PrescriptionChange,
  submitted: SubmittedBody,
  /** false: the actor need not be able to prescribe (a portal rx_reader reissuing; see capabilities.ts). */
  actorMustPrescribe = true,
): Promise<Prescription> {
  return valueOrRefuse(await readAndChange(ctx, caller, ids, action, submitted, actorMustPrescribe));
}

/** As changePrescription, for the portal: a refused body or change is its result (PrescribingResult). */
export async function changePrescriptionOrRefuse(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath & { scid: string },
  action: PrescriptionChange,
  submitted: SubmittedBody,
  actorMustPrescribe = true,
): Promise<PrescribingResult<Prescription>> {
  return refusedAsResult(() => readAndChange(ctx, caller, ids, action, submitted, actorMustPrescribe));
}

/** The change: a refused body is returned as its field errors, a refused change (409) thrown (and noted in the audit trail). */
async function readAndChange(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath & { scid: string },
  action: PrescriptionChange,
  submitted: SubmittedBody,
  actorMustPrescribe: boolean,
): Promise<BodyRead<Prescription>> {
  const scid = readScid(ids.scid);
  const { prescriber, patient } = await requirePrescriberAndPatient(ctx, caller, ids);
  const found = await requirePrescription(ctx, patient, scid);
  const body = presentBody(submitted);
  const resends = action === 'reissue' && found.prescription_type === 'ELECTRONIC';
  const delivery: { columns?: DeliveryColumns; issues: ValidationIssue[] } = resends ? judgeReissueDelivery(ctx, body, found, patient) : { issues: [] };
  // ChangeBody's fields are ReissueBody's but the delivery; the route's own schema found the failures.
  const read = readBody(ReissueBody, body, { errors: () => delivery.issues });
  if (!read.ok) return read;
  try {
    if (actorMustPrescribe) requireReadyPrescriber(prescriber);
    refusePaperReissue(found, action);
    const transition = planTransition(action, found.status as PrescriptionStatus, scid);
    await confirmWithPds(ctx, found, action);
    const at = ctx.clock.now().toISOString();
    const columns = { status: transition.to, updated_at: at, updated_by_user_id: prescriber.user_id, ...(delivery.columns && sealedDeliveryOf(delivery.columns, ctx.secretKey)) };
    await applyChange(ctx, { found, patient, action, actorId: prescriber.user_id, columns }, reservedOf(body));
    return { ok: true, value: viewOfPrescription({ ...found, ...columns }, ctx) };
  } catch (error) {
    await noteRefusedAction(ctx, action, { patient, scid, prescriberId: prescriber.user_id }, error);
    throw error;
  }
}
