// Patients of an organization: the context every patient operation runs in, and the IHI
// precheck and create patient, one check (patient-check.ts) read two ways. The precheck
// reports it; create acts on it, refusing exactly when the precheck's outcome rules say
// create_would_succeed is false. Update is in patient-update.ts. Every call to the HI Service
// leaves a `hi.ihi_search` entry (ihi-search-audit.ts), refused or not.
import type { Kysely } from 'kysely';
import { auditRecords, type AuditTrail } from '../audit/index.ts';
import type { Principal } from '../auth/index.ts';
import type { HiServicePort, IhiFound } from '../hi-service/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork, Work } from '../platform/db/unit-of-work.ts';
import { ApiError, validationFailed } from '../platform/http/api-error.ts';
import { valueOrRefuse, type SubmittedBody } from '../platform/http/body-validation.ts';
import { newId } from '../platform/ids.ts';
import type { Deps } from '../deps.ts';
import { requireOrganizationUser, type UsersContext } from '../users/index.ts';
import { buildPrecheckData, createWouldSucceed, describePrecheck, type PatientCheck } from './ihi-precheck.ts';
import { fieldOfPath, labelOfPath, startSearchBudget, type SearchAttempt, type SearchBudget } from './ihi-search.ts';
import { noteIhiSearches, recordIhiSearches } from './ihi-search-audit.ts';
import { readPatientInputBody } from './patient-input-checks.ts';
import { checkPatient } from './patient-check.ts';
import { columnsOf, identifiersOf, normalisePatientInput, recordFromInput, type PatientInput } from './patient-records.ts';
import type { PatientCreatedData, PatientInputBody, PrecheckData, PrecheckOutcome } from './patients-schemas.ts';
import { isUniqueViolation } from '../platform/db/database.ts';
import { findPatientsByPartnerPatientId, insertPatient, type PatientRow } from './patients-store.ts';

export interface PatientsContext {
  db: Kysely<Database>;
  clock: Clock;
  hiService: HiServicePort;
  /** Seals IHI, Medicare and DVA numbers at rest. */
  secretKey: Buffer;
  /** The portal's origin: a patient's `url` is its page there. */
  portalUrl: string;
  /** The path user of every patient route belongs to the caller's organization. */
  users: UsersContext;
  /** Every change commits through it, with the records it leaves. */
  unitOfWork: UnitOfWork;
  /** Records every patient read and HI Service call (changes record through the unit of work). */
  audit: AuditTrail;
  /** Starts the time budget of one request's HI Service calls (ERX_HI_BUDGET_MS). */
  startHiBudget: () => SearchBudget;
}

export function createPatientsContext(
  deps: Pick<Deps, 'database' | 'clock' | 'hiService' | 'secretKey' | 'config'>,
  features: { users: UsersContext; unitOfWork: UnitOfWork; audit: AuditTrail },
): PatientsContext {
  return {
    db: deps.database,
    clock: deps.clock,
    hiService: deps.hiService,
    secretKey: deps.secretKey,
    portalUrl: deps.config.portalUrl,
    users: features.users,
    unitOfWork: features.unitOfWork,
    audit: features.audit,
    startHiBudget: () => startSearchBudget(deps.config.hiBudgetMs),
  };
}

/** The path user (404), then the body: schema and identifier formats together (422). */
async function readPatientInput(ctx: PatientsContext, principal: Principal, pathUserId: string, submitted: SubmittedBody): Promise<PatientInput> {
  await requireOrganizationUser(ctx.users, principal, pathUserId);
  return normalisePatientInput(valueOrRefuse(readPatientInputBody(submitted, principal.partnerId, ctx.clock.now())));
}

export async function runIhiPrecheck(
  ctx: PatientsContext,
  principal: Principal,
  pathUserId: string,
  submitted: SubmittedBody,
): Promise<{ message: string; data: PrecheckData }> {
  const input = await readPatientInput(ctx, principal, pathUserId, submitted);
  const attempts: SearchAttempt[] = [];
  let check: PatientCheck | undefined;
  try {
    check = await checkPatient(ctx, principal, input, { liveCheckOfExisting: true, attempts });
  } finally {
    // The live check of an existing patient searched for that patient.
    const patientId = check?.outcome === 'already_exists' ? check.existing.id : null;
    if (attempts.length > 0) await noteIhiSearches(ctx.audit, attempts, identifiersOf(input), patientId);
  }
  return { message: describePrecheck(check), data: buildPrecheckData(check) };
}

type CheckOf<O extends PrecheckOutcome> = Extract<PatientCheck, { outcome: O }>;

function insufficientDataRefusal(check: CheckOf<'insufficient_data'>): ApiError {
  const issues = check.plan.searchPaths.flatMap(({ path, missing }) =>
    missing.map((field) => ({
      field,
      message: `needed to search the HI Service using the ${labelOfPath(path)}; supply at least one identifier`,
      code: 'REQUIRED_FIELD' as const,
    })),
  );
  return validationFailed(issues, 'No identifier to search the HI Service on; supply at least one (see error.validation)');
}

/** What create answers for each outcome whose create_would_succeed can be false. */
const CREATE_REFUSALS: { [O in PrecheckOutcome]?: (check: CheckOf<O>) => ApiError } = {
  organization_not_ready: () =>
    new ApiError('INVALID_REQUEST', 'The organization has no HPI-O configured; the operator must link one before patients can be created'),
  insufficient_data: insufficientDataRefusal,
  ihi_found: (check) => {
    const status = check.search.found.ihi_record_status ?? 'not returned';
    const message = `the IHI found using the ${labelOfPath(check.search.searchedPath)} has record status ${status}; a patient can be created once the record is verified`;
    const issue = { field: fieldOfPath(check.search.searchedPath), message, code: 'HI_SERVICE_NOT_VERIFIED' as const };
    return validationFailed([issue], 'The IHI record is not verified');
  },
  hi_service_error: () => new ApiError('SERVICE_UNAVAILABLE', 'The HI Service is unreachable; retry later'),
};

function refusalOf(check: PatientCheck): ApiError {
  const refuse = CREATE_REFUSALS[check.outcome] as ((check: PatientCheck) => ApiError) | undefined;
  if (!refuse) throw new Error(`no refusal defined for outcome ${check.outcome}`);
  return refuse(check);
}

export function viewOfCreated(ctx: PatientsContext, row: Pick<PatientRow, 'id' | 'partner_patient_id' | 'ihi_number_encrypted' | 'ihi_status' | 'ihi_record_status'>): PatientCreatedData {
  return {
    platform_patient_id: row.id,
    partner_patient_id: row.partner_patient_id,
    has_ihi: row.ihi_number_encrypted !== null,
    ...(row.ihi_status ? { ihi_status: row.ihi_status as PatientCreatedData['ihi_status'] } : {}),
    ...(row.ihi_record_status ? { ihi_record_status: row.ihi_record_status as PatientCreatedData['ihi_record_status'] } : {}),
    url: `${ctx.portalUrl}/dashboard/patients/${row.id}`,
    external_patient_id: row.partner_patient_id,
    parchment_patient_id: row.id,
  };
}

export interface CreatePatientResult {
  created: boolean;
  data: PatientCreatedData;
}

export async function createPatient(
  ctx: PatientsContext,
  principal: Principal,
  pathUserId: string,
  submitted: SubmittedBody,
): Promise<CreatePatientResult> {
  const input = await readPatientInput(ctx, principal, pathUserId, submitted);
  const attempts: SearchAttempt[] = [];
  let check: PatientCheck;
  try {
    // An existing patient is returned as it is: no HI search runs for it.
    check = await checkPatient(ctx, principal, input, { liveCheckOfExisting: false, attempts });
  } catch (error) {
    await noteIhiSearches(ctx.audit, attempts, identifiersOf(input), null);
    throw error;
  }
  if (check.outcome === 'already_exists') return returnExisting(ctx, check.existing);
  if (!createWouldSucceed(check)) {
    await noteIhiSearches(ctx.audit, attempts, identifiersOf(input), null);
    throw refusalOf(check);
  }
  const found = check.outcome === 'ihi_found' ? check.search.found : undefined;
  return insertNewPatient(ctx, principal, input, found, attempts);
}

/** Create answering with a patient that was already there: a read of it. */
async function returnExisting(ctx: PatientsContext, existing: PatientRow): Promise<CreatePatientResult> {
  await ctx.audit.noteAccess({ action: 'patient.read', patientId: existing.id });
  return { created: false, data: viewOfCreated(ctx, existing) };
}

/** The HI Service calls that led to a create, for its unit of work. */
interface SearchesMade {
  attempts: SearchAttempt[];
  input: PatientInput;
}

/** The searches name the patient only if this create makes it; a winner found instead is a read of it. */
function recordCreation(work: Work, searches: SearchesMade, row: PatientRow, winner: PatientRow | undefined): void {
  recordIhiSearches(work, searches.attempts, identifiersOf(searches.input), winner ? null : row.id);
  work.record(auditRecords, winner ? { action: 'patient.read', patientId: winner.id } : { action: 'patient.create', patientId: row.id });
}

async function findFirstPatient(db: PatientsContext['db'], row: Pick<PatientRow, 'organization_id' | 'partner_patient_id'>) {
  const [first] = await findPatientsByPartnerPatientId(db, row.organization_id, row.partner_patient_id);
  return first;
}

/**
 * Inserts inside a transaction that first looks again for the partner_patient_id, so two
 * creates never both insert: on SQLite the transaction holds the write lock from its start;
 * on PostgreSQL the partial unique index on API-created patients (migration 0002) rejects
 * the loser, which then returns the winner's patient as "already exists".
 */
async function insertNewPatient(
  ctx: PatientsContext,
  principal: Principal,
  input: PatientInput,
  found: IhiFound | undefined,
  attempts: SearchAttempt[],
): Promise<CreatePatientResult> {
  const now = ctx.clock.now().toISOString();
  const row: PatientRow = {
    id: newId(),
    organization_id: principal.organizationId,
    partner_id: principal.partnerId,
    partner_patient_id: input.partner_patient_id,
    source: 'api',
    // The token's user, who did it; the path's user is only whose list the call is made in.
    created_by_user_id: principal.userId,
    ...columnsOf(recordFromInput(input, found), ctx.secretKey),
    ihi_verified_at: found ? now : null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    deleted_by_user_id: null,
  };
  try {
    const existing = await ctx.unitOfWork.run(async (work) => {
      const winner = await findFirstPatient(work.trx, row);
      if (!winner) await insertPatient(work.trx, row);
      recordCreation(work, { attempts, input }, row, winner);
      return winner;
    });
    return existing ? { created: false, data: viewOfCreated(ctx, existing) } : { created: true, data: viewOfCreated(ctx, row) };
  } catch (error) {
    // Rolled back with its entries: the HI Service was still asked, and no patient was made.
    await noteIhiSearches(ctx.audit, attempts, identifiersOf(input), null);
    const winner = isUniqueViolation(error) ? await findFirstPatient(ctx.db, row) : undefined;
    if (!winner) throw error;
    return returnExisting(ctx, winner);
  }
}
