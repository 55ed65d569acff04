// The check both the precheck and create patient run on a validated body, applying the
// spec's precedence: several patients share the partner_patient_id (409) > already_exists >
// organization_not_ready > insufficient_data > the outcome of the HI Service search.
import type { Kysely } from 'kysely';
import type { HiCallContext, HiServicePort, IhiSearchIdentifiers, IhiSearchPath } from '../hi-service/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { PatientCheck } from './ihi-precheck.ts';
import { planIhiSearch, runIhiSearch, type SearchAttempt, type SearchBudget } from './ihi-search.ts';
import { demographicsOf, identifiersOf, type PatientInput } from './patient-records.ts';
import { findPatientsByPartnerPatientId } from './patients-store.ts';

/** What the check reads (the service's context has both): named here so this file needs nothing from the service. */
interface CheckContext {
  db: Kysely<Database>;
  hiService: HiServicePort;
  startHiBudget: () => SearchBudget;
}

export function severalPatientsConflict(): ApiError {
  return new ApiError(
    'CONFLICT',
    'Several patients share this partner_patient_id in the organization; ask the operator to resolve the duplicates',
  );
}

export async function checkPatient(
  ctx: CheckContext,
  organization: { organizationId: string; organizationHpio: string | null; userId: string },
  input: PatientInput,
  options: { liveCheckOfExisting: boolean; attempts: SearchAttempt[] },
): Promise<PatientCheck> {
  const matches = await findPatientsByPartnerPatientId(ctx.db, organization.organizationId, input.partner_patient_id);
  const hpio = organization.organizationHpio;
  if (matches.length > 1) throw severalPatientsConflict();
  const identifiers = identifiersOf(input);
  const plan = planIhiSearch(identifiers);
  const canSearch = hpio !== null && plan.runnable.length > 0;
  const [existing] = matches;
  if (existing) {
    const live = options.liveCheckOfExisting && canSearch ? await searchFor(ctx, { hpio: hpio!, userId: organization.userId }, identifiers, input, plan.runnable, options.attempts) : undefined;
    return { outcome: 'already_exists', existing, live };
  }
  if (hpio === null) return { outcome: 'organization_not_ready' };
  if (!canSearch) return { outcome: 'insufficient_data', plan };
  const run = await searchFor(ctx, { hpio, userId: organization.userId }, identifiers, input, plan.runnable, options.attempts);
  if (run.kind === 'found') return { outcome: 'ihi_found', search: run };
  if (run.kind === 'no_match') return { outcome: 'no_match', search: run };
  return { outcome: 'hi_service_error', search: run };
}

// A module function, not a closure in checkPatient: the TypeScript loader names each closure
// as it is made, which costs more than the rest of the plan on this hot path.
function searchFor(ctx: CheckContext, context: HiCallContext, identifiers: IhiSearchIdentifiers, input: PatientInput, paths: IhiSearchPath[], attempts: SearchAttempt[]) {
  return runIhiSearch(ctx.hiService, context, identifiers, demographicsOf(input), paths, attempts, ctx.startHiBudget());
}
