// The IHI search that patient creation runs and the precheck rehearses: the spec's search
// order table as one constant, which paths a body can use, and the walk through them.
import { performance } from 'node:perf_hooks';
import {
  classifyHiFailure,
  type HiCallContext,
  type HiFailureOutcome,
  type HiDemographics,
  type HiServicePort,
  type IhiFound,
  type IhiSearchIdentifiers,
  type IhiSearchPath,
  type IhiSearchResult,
} from '../hi-service/index.ts';

/** The parts of an international address its path needs, all four. */
const INTERNATIONAL_ADDRESS_PARTS = ['address_line', 'postcode', 'state_province', 'country'] as const;
type InternationalAddressField = `international_address.${(typeof INTERNATIONAL_ADDRESS_PARTS)[number]}`;

/** A request field a path needs: an identifier, or one part of the international address. */
type SearchField = Exclude<keyof IhiSearchIdentifiers, 'international_address'> | InternationalAddressField;

/**
 * The spec's "Search order and required fields" table, in priority order. Every path also
 * needs family_name, given_name, date_of_birth and sex, which the schema always requires.
 * An IHI sent in the body is not trusted as it is: path 1 asks the HI Service to confirm it
 * for these demographics, and falls through like any other path when it does not.
 * The international address is searchable only with all four parts (address line, postcode,
 * state or province, country), as the HI Service needs them; the API accepts it with fewer.
 * `label` names the identifier in human messages.
 */
export const IHI_SEARCH_ORDER = [
  { priority: 1, path: 'ihi_number', requires: ['ihi_number'], label: 'IHI number' },
  { priority: 2, path: 'medicare', requires: ['medicare_card_number', 'medicare_irn'], label: 'Medicare number' },
  { priority: 3, path: 'dva', requires: ['dva_file_number'], label: 'DVA file number' },
  { priority: 4, path: 'mobile', requires: ['phone'], label: 'mobile number' },
  { priority: 5, path: 'email', requires: ['email'], label: 'email address' },
  { priority: 6, path: 'australian-street-address', requires: ['australian_street_address'], label: 'Australian street address' },
  {
    priority: 7,
    path: 'international-address',
    requires: INTERNATIONAL_ADDRESS_PARTS.map((part): InternationalAddressField => `international_address.${part}`),
    label: 'international address',
  },
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

function valueOf(identifiers: IhiSearchIdentifiers, field: SearchField): unknown {
  const [name, part] = field.split('.') as [keyof IhiSearchIdentifiers, string | undefined];
  const value = identifiers[name];
  return part === undefined || value == null ? value : (value as Record<string, unknown>)[part];
}

export function planIhiSearch(identifiers: IhiSearchIdentifiers): IhiSearchPlan {
  const searchPaths = IHI_SEARCH_ORDER.map(({ path, requires }) => ({
    path,
    missing: (requires as readonly SearchField[]).filter((field) => valueOf(identifiers, field) == null),
  }));
  const runnable = searchPaths.filter((needs) => needs.missing.length === 0).map((needs) => needs.path);
  const medicareWithoutIrnOnly =
    runnable.length === 0 && identifiers.medicare_card_number != null && identifiers.medicare_irn == null;
  return { runnable, searchPaths, medicareWithoutIrnOnly };
}

export function labelOfPath(path: IhiSearchPath): string {
  return IHI_SEARCH_ORDER.find((entry) => entry.path === path)!.label;
}

/** The request field of a path (the address object for an address path), to name it in a validation entry. */
export function fieldOfPath(path: IhiSearchPath): keyof IhiSearchIdentifiers {
  const [first] = IHI_SEARCH_ORDER.find((entry) => entry.path === path)!.requires;
  return first.split('.')[0] as keyof IhiSearchIdentifiers;
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
  /** No answer to use: the service could not be reached, answered with an error (`refused`), or the request's time budget ran out (`budgetSpent`). */
  | (SearchTrail & { kind: 'unreachable'; budgetSpent?: true; refused?: true });

/** The IHI found, kept out of every other shape so it cannot be rendered by accident. */
export type FoundRun = Extract<IhiSearchRun, { kind: 'found' }>;

/** One call to the HI Service during a search: what the audit trail records of it (ihi-search-audit.ts). */
export interface SearchAttempt {
  path: IhiSearchPath;
  /**
   * What the HI Service answered; `rejected`: an Error or Fatal answer (its severity and code in
   * `reason`); `unreachable`: no answer (transport, timeout, budget); `error`: the adapter threw
   * something else (classifyHiFailure, the HI face, names all three).
   */
  hiResult: 'found' | 'no_match' | HiFailureOutcome;
  durationMs: number;
  /** For a rejection: `<severity> <code>`, the service's message code (never the caller's input). */
  reason?: string;
}

/** How long the calls of one request may take together (ERX_HI_BUDGET_MS). */
export interface SearchBudget {
  /** Aborts when the budget runs out; each call that reads it is given it (HiCallContext.signal). */
  readonly signal: AbortSignal;
  spent(): boolean;
}

export interface BudgetTimers {
  now(): number;
  abortAfter(ms: number): AbortSignal;
}

const REAL_TIMERS: BudgetTimers = { now: () => performance.now(), abortAfter: (ms) => AbortSignal.timeout(ms) };

/**
 * The signal is made when a call first reads it, timed to the same deadline: AbortSignal.timeout
 * (an event target, a timer and a finalization registration) was ~2 % of every precheck, whose
 * simulated calls answer at once and never read it. `spent()` needs no signal.
 */
export function startSearchBudget(totalMs: number, timers: BudgetTimers = REAL_TIMERS): SearchBudget {
  const deadline = timers.now() + totalMs;
  let signal: AbortSignal | undefined;
  return {
    get signal() {
      return (signal ??= timers.abortAfter(Math.max(0, Math.ceil(deadline - timers.now()))));
    },
    spent: () => signal?.aborted === true || timers.now() >= deadline,
  };
}

/** A call's context whose signal is the budget's, read (and so made) only by a call that uses it. */
function budgetedContext(context: HiCallContext, budget: SearchBudget): HiCallContext {
  return {
    hpio: context.hpio,
    userId: context.userId,
    get signal() {
      return budget.signal;
    },
  };
}

function attemptOf(path: IhiSearchPath, error: unknown, durationMs: number): SearchAttempt {
  const failure = classifyHiFailure(error);
  return { path, hiResult: failure.outcome, durationMs, ...(failure.outcome === 'rejected' ? { reason: failure.reason } : {}) };
}

/**
 * Tries each runnable path in priority order until one matches; a path that finds no record
 * falls through to the next. An unreachable or refusing HI Service ends the walk, and so does
 * the budget: each call gets its signal, and once it is spent no further path is tried (not even
 * the first: a call that would only be abandoned is not made).
 * `paths` is not empty. Each call made is appended to `attempts` as it ends, even when the walk
 * then throws, so the caller can record every call the HI Service saw.
 */
export async function runIhiSearch(
  hiService: HiServicePort,
  context: HiCallContext,
  identifiers: IhiSearchIdentifiers,
  demographics: HiDemographics,
  paths: IhiSearchPath[],
  attempts: SearchAttempt[] = [],
  budget?: SearchBudget,
): Promise<IhiSearchRun> {
  const failedPaths: IhiSearchPath[] = [];
  const callContext = budget ? budgetedContext(context, budget) : context;
  for (const path of paths) {
    if (budget?.spent()) return { kind: 'unreachable', searchedPath: failedPaths.pop() ?? path, failedPaths, budgetSpent: true };
    const started = performance.now();
    let result: IhiSearchResult;
    try {
      result = await hiService.searchIhi(Object.assign({ path, demographics }, identifiers), callContext);
    } catch (error) {
      const attempt = attemptOf(path, error, elapsedSince(started));
      attempts.push(attempt);
      if (attempt.hiResult === 'error') throw error;
      if (attempt.hiResult === 'rejected') return { kind: 'unreachable', searchedPath: path, failedPaths, refused: true };
      return budget?.spent() ? { kind: 'unreachable', searchedPath: path, failedPaths, budgetSpent: true } : { kind: 'unreachable', searchedPath: path, failedPaths };
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
