// The IHI precheck's answer: the spec's outcomes table as data (create_would_succeed and
// ihi_check_passed per outcome), the response data built from a check, and the human
// summary. Create patient reads the same table, so the precheck cannot promise what create
// would refuse.
import type { IhiSearchPath } from '../hi-service/index.ts';
import { labelOfPath, passesIhiCheck, type FoundRun, type IhiSearchPlan, type IhiSearchRun } from './ihi-search.ts';
import type { PrecheckData, PrecheckOutcome } from './patients-schemas.ts';
import type { PatientRow } from './patients-store.ts';

/** What the check found, one variant per outcome, in the spec's precedence order. */
export type PatientCheck =
  | { outcome: 'already_exists'; existing: PatientRow; live: IhiSearchRun | undefined }
  | { outcome: 'organization_not_ready' }
  | { outcome: 'insufficient_data'; plan: IhiSearchPlan }
  | { outcome: 'hi_service_error'; search: Extract<IhiSearchRun, { kind: 'unreachable' }> }
  | { outcome: 'ihi_found'; search: FoundRun }
  | { outcome: 'no_match'; search: Extract<IhiSearchRun, { kind: 'no_match' }> };

type CheckOf<O extends PrecheckOutcome> = Extract<PatientCheck, { outcome: O }>;

interface OutcomeRule<C> {
  createWouldSucceed: (check: C) => boolean;
  /** undefined: absent from the response (no search ran, or it could not complete). */
  ihiCheckPassed: (check: C) => boolean | undefined;
}

function liveCheckPassed(live: IhiSearchRun | undefined): boolean | undefined {
  if (live === undefined || live.kind === 'unreachable') return undefined;
  return live.kind === 'found' && passesIhiCheck(live.found);
}

/** The spec's outcomes table. */
export const PRECHECK_OUTCOME_RULES: { [O in PrecheckOutcome]: OutcomeRule<CheckOf<O>> } = {
  ihi_found: {
    // Creation is rejected until the record is VERIFIED (PROVISIONAL, UNVERIFIED, none).
    createWouldSucceed: (check) => check.search.found.ihi_record_status === 'VERIFIED',
    ihiCheckPassed: (check) => passesIhiCheck(check.search.found),
  },
  no_match: { createWouldSucceed: () => true, ihiCheckPassed: () => false },
  insufficient_data: {
    createWouldSucceed: (check) => check.plan.medicareWithoutIrnOnly,
    ihiCheckPassed: () => undefined,
  },
  already_exists: { createWouldSucceed: () => true, ihiCheckPassed: (check) => liveCheckPassed(check.live) },
  organization_not_ready: { createWouldSucceed: () => false, ihiCheckPassed: () => undefined },
  hi_service_error: { createWouldSucceed: () => false, ihiCheckPassed: () => undefined },
};

function ruleOf(check: PatientCheck): OutcomeRule<PatientCheck> {
  return PRECHECK_OUTCOME_RULES[check.outcome] as OutcomeRule<PatientCheck>;
}

export function createWouldSucceed(check: PatientCheck): boolean {
  return ruleOf(check).createWouldSucceed(check);
}

function searchRunOf(check: PatientCheck): IhiSearchRun | undefined {
  if (check.outcome === 'already_exists') return check.live;
  return 'search' in check ? check.search : undefined;
}

// Copies statuses field by field: the IHI itself must never reach the response data.
function describeRun(run: IhiSearchRun): Partial<PrecheckData> {
  const data: Partial<PrecheckData> = { searched_path: run.searchedPath };
  if (run.failedPaths.length > 0) data.failed_paths = [...run.failedPaths];
  if (run.kind === 'found' && run.found.ihi_status) data.ihi_status = run.found.ihi_status;
  if (run.kind === 'found' && run.found.ihi_record_status) data.ihi_record_status = run.found.ihi_record_status;
  return data;
}

export function buildPrecheckData(check: PatientCheck): PrecheckData {
  const rule = ruleOf(check);
  const passed = rule.ihiCheckPassed(check);
  const run = searchRunOf(check);
  const data: PrecheckData = {
    outcome: check.outcome,
    create_would_succeed: rule.createWouldSucceed(check),
    ...(passed === undefined ? {} : { ihi_check_passed: passed }),
    ...(run ? describeRun(run) : {}),
  };
  if (check.outcome === 'already_exists') {
    data.has_ihi = check.existing.ihi_number_encrypted !== null;
    data.platform_patient_id = check.existing.id;
  }
  if (check.outcome === 'insufficient_data') {
    data.search_paths = check.plan.searchPaths.map(({ path, missing }) => ({ path, missing: [...missing] }));
  }
  return data;
}

function listPaths(paths: IhiSearchPath[]): string {
  const labels = paths.map(labelOfPath);
  return labels.length <= 1 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}

function describeSearch(run: IhiSearchRun): string {
  const nothingFound = run.failedPaths.length > 0 ? ` (no record found using ${listPaths(run.failedPaths)})` : '';
  if (run.kind === 'unreachable' && run.refused) {
    return `The HI Service answered the search using ${labelOfPath(run.searchedPath)} with an error${nothingFound}; retry later`;
  }
  if (run.kind === 'unreachable' && run.budgetSpent) {
    return `The request's time budget for the HI Service ran out at the search using ${labelOfPath(run.searchedPath)}${nothingFound}; retry later`;
  }
  if (run.kind === 'unreachable') {
    return `The HI Service could not be reached while searching using ${labelOfPath(run.searchedPath)}${nothingFound}; retry later`;
  }
  if (run.kind === 'no_match') return `No IHI found using ${listPaths([...run.failedPaths, run.searchedPath])}`;
  const summary = `IHI found using ${labelOfPath(run.searchedPath)}${nothingFound}`;
  const { ihi_status: status = 'no status', ihi_record_status: record = 'no record status' } = run.found;
  return `${summary}; status ${status}, ${record}`;
}

const OUTCOME_MESSAGES: { [O in PrecheckOutcome]: (check: CheckOf<O>) => string } = {
  ihi_found: (check) =>
    createWouldSucceed(check)
      ? describeSearch(check.search)
      : `${describeSearch(check.search)}: creation is rejected until the record is verified`,
  no_match: (check) => `${describeSearch(check.search)}; the patient would be created without an IHI`,
  insufficient_data: (check) =>
    check.plan.medicareWithoutIrnOnly
      ? 'A Medicare number without medicare_irn cannot be searched; the patient would be created without an IHI'
      : 'No identifier to search the HI Service on; search_paths lists what each path needs',
  already_exists: (check) => {
    const live = check.live ? `; live check: ${describeSearch(check.live)}` : '; the live check could not run';
    return `A patient with this partner_patient_id already exists and would be returned by create${live}`;
  },
  organization_not_ready: () =>
    'The organization has no HPI-O configured; the operator must link one before patients can be created',
  hi_service_error: (check) => describeSearch(check.search),
};

export function describePrecheck(check: PatientCheck): string {
  return (OUTCOME_MESSAGES[check.outcome] as (check: PatientCheck) => string)(check);
}
