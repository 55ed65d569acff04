// The IHI search that patient creation runs and the precheck rehearses: the spec's search
// order table as one constant, which paths a body can use, and the walk through them.
import {
  HiServiceUnreachableError,
  type HiCallContext,
  type HiDemographics,
  type HiServicePort,
  type IhiFound,
  type IhiSearchIdentifiers,
  type IhiSearchPath,
  type IhiSearchResult,
} from '../hi-service/index.ts';

type SearchField = keyof IhiSearchIdentifiers;

/**
 * The spec's "Search order and required fields" table, in priority order. Every path also
 * needs family_name, given_name, date_of_birth and sex, which the schema always requires.
 * An IHI sent in the body is not trusted as it is: path 1 asks the HI Service to confirm it
 * for these demographics, and falls through like any other path when it does not.
 * `label` names the identifier in human messages.
 */
export const IHI_SEARCH_ORDER = [
  { priority: 1, path: 'ihi_number', requires: ['ihi_number'], label: 'IHI number' },
  { priority: 2, path: 'medicare', requires: ['medicare_card_number', 'medicare_irn'], label: 'Medicare number' },
  { priority: 3, path: 'dva', requires: ['dva_file_number'], label: 'DVA file number' },
  { priority: 4, path: 'mobile', requires: ['phone'], label: 'mobile number' },
  { priority: 5, path: 'email', requires: ['email'], label: 'email address' },
  { priority: 6, path: 'australian-street-address', requires: ['australian_street_address'], label: 'Australian street address' },
  { priority: 7, path: 'international-address', requires: ['international_address'], label: 'international address' },
] as const satisfies ReadonlyArray<{ priority: number; path: IhiSearchPath; requires: readonly SearchField[]; label: string }>;

export interface SearchPathNeeds {
  path: IhiSearchPath;
  /** The request fields that would unlock this path; empty when it can be searched. */
  missing: SearchField[];
}

export interface IhiSearchPlan {
  /** The paths this body can search, in priority order. */
  runnable: IhiSearchPath[];
  /** All seven paths with what each lacks. */
  searchPaths: SearchPathNeeds[];
  /** Rule 2: a Medicare number without medicare_irn is the only identifier. */
  medicareWithoutIrnOnly: boolean;
}

export function planIhiSearch(identifiers: IhiSearchIdentifiers): IhiSearchPlan {
  const searchPaths = IHI_SEARCH_ORDER.map(({ path, requires }) => ({
    path,
    missing: requires.filter((field) => identifiers[field] === undefined || identifiers[field] === null),
  }));
  const runnable = searchPaths.filter((needs) => needs.missing.length === 0).map((needs) => needs.path);
  const medicareWithoutIrnOnly =
    runnable.length === 0 && identifiers.medicare_card_number != null && identifiers.medicare_irn == null;
  return { runnable, searchPaths, medicareWithoutIrnOnly };
}

export function labelOfPath(path: IhiSearchPath): string {
  return IHI_SEARCH_ORDER.find((entry) => entry.path === path)!.label;
}

/** The first request field of a path, to name it in a validation entry. */
export function fieldOfPath(path: IhiSearchPath): SearchField {
  return IHI_SEARCH_ORDER.find((entry) => entry.path === path)!.requires[0];
}

interface SearchTrail {
  /** The path that matched, failed, or (no match) was tried last. */
  searchedPath: IhiSearchPath;
  /** Paths tried before searchedPath that found no record. */
  failedPaths: IhiSearchPath[];
}

export type IhiSearchRun =
  | (SearchTrail & { kind: 'found'; found: IhiFound })
  | (SearchTrail & { kind: 'no_match' })
  | (SearchTrail & { kind: 'unreachable' });

/** The IHI found, kept out of every other shape so it cannot be rendered by accident. */
export type FoundRun = Extract<IhiSearchRun, { kind: 'found' }>;

/** One call to the HI Service during a search: what the audit trail records of it (ihi-search-audit.ts). */
export interface SearchAttempt {
  path: IhiSearchPath;
  /** What the HI Service answered; `failed`: the adapter threw something other than "unreachable". */
  hiResult: 'found' | 'no_match' | 'unreachable' | 'failed';
  durationMs: number;
}

/**
 * Tries each runnable path in priority order until one matches; a path that finds no record
 * falls through to the next. An unreachable HI Service ends the walk. `paths` is not empty.
 * Each call made is appended to `attempts` as it ends, even when the walk then throws, so the
 * caller can record every call the HI Service saw.
 */
export async function runIhiSearch(
  hiService: HiServicePort,
  context: HiCallContext,
  identifiers: IhiSearchIdentifiers,
  demographics: HiDemographics,
  paths: IhiSearchPath[],
  attempts: SearchAttempt[] = [],
): Promise<IhiSearchRun> {
  const failedPaths: IhiSearchPath[] = [];
  for (const path of paths) {
    const started = performance.now();
    let result: IhiSearchResult;
    try {
      result = await hiService.searchIhi(Object.assign({ path, demographics }, identifiers), context);
    } catch (error) {
      const unreachable = error instanceof HiServiceUnreachableError;
      attempts.push({ path, hiResult: unreachable ? 'unreachable' : 'failed', durationMs: elapsedSince(started) });
      if (unreachable) return { kind: 'unreachable', searchedPath: path, failedPaths };
      throw error;
    }
    attempts.push({ path, hiResult: result.kind, durationMs: elapsedSince(started) });
    if (result.kind === 'found') return { kind: 'found', found: result, searchedPath: path, failedPaths };
    failedPaths.push(path);
  }
  const searchedPath = failedPaths.pop()!;
  return { kind: 'no_match', searchedPath, failedPaths };
}

/** Milliseconds, to a tenth: a duration, not a time of day, so the monotonic clock rather than the injected one. */
function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** ACTIVE with a VERIFIED record: the only result the precheck calls a passed check. */
export function passesIhiCheck(found: IhiFound): boolean {
  return found.ihi_status === 'ACTIVE' && found.ihi_record_status === 'VERIFIED';
}
