import { describe, expect, it } from 'vitest';
import {
  createHiSandboxSimulator,
  HI_DEMO_FIXTURES,
  HI_DEMO_PATIENTS,
  HiServiceRejectedError,
  HiServiceUnreachableError,
  IHI_SEARCH_PATHS,
  type HiCallContext,
  type HiServicePort,
  type IhiSearchPath,
  type IhiSearchRequest,
  type IhiSearchResult,
} from '../hi-service/index.ts';
import { IHI_SEARCH_ORDER, planIhiSearch, runIhiSearch, startSearchBudget, type BudgetTimers, type SearchAttempt } from './ihi-search.ts';

const ADDRESS = { street_number: '1', street_name: 'Main St', suburb: 'Carlton', state: 'VIC', postcode: '3053' };
const ABROAD = { address_line: '1 Queen St', postcode: '1010', state_province: 'Auckland', country: 'NZ' };
const ABROAD_PARTS = ['address_line', 'postcode', 'state_province', 'country'].map((part) => `international_address.${part}`);
const ALL_IDENTIFIERS = {
  ihi_number: '8003601240022579',
  medicare_card_number: '2950141861',
  medicare_irn: '1',
  dva_file_number: 'NX123456',
  phone: '0412345678',
  email: 'a@example.com',
  australian_street_address: ADDRESS,
  international_address: ABROAD,
};
const DEMOGRAPHICS = { family_name: 'Wood', given_name: 'Jessica', date_of_birth: '1985-02-14', sex: 'F' as const };

describe('the search order constant', () => {
  it('lists the spec table: seven paths, in priority order, with their required fields', () => {
    expect(IHI_SEARCH_ORDER.map(({ priority, path, requires }) => [priority, path, requires])).toEqual([
      [1, 'ihi_number', ['ihi_number']],
      [2, 'medicare', ['medicare_card_number', 'medicare_irn']],
      [3, 'dva', ['dva_file_number']],
      [4, 'mobile', ['phone']],
      [5, 'email', ['email']],
      [6, 'australian-street-address', ['australian_street_address']],
      [7, 'international-address', ABROAD_PARTS],
    ]);
    expect(IHI_SEARCH_ORDER.map((entry) => entry.path)).toEqual([...IHI_SEARCH_PATHS]);
  });
});

describe('planIhiSearch', () => {
  it.each([
    ['every identifier', ALL_IDENTIFIERS, [...IHI_SEARCH_PATHS], false],
    ['nothing', {}, [], false],
    ['a Medicare number without IRN only', { medicare_card_number: '2950141861' }, [], true],
    ['an IRN without a Medicare number', { medicare_irn: '1' }, [], false],
    ['a Medicare number without IRN beside a phone', { medicare_card_number: '2950141861', phone: '0412345678' }, ['mobile'], false],
    ['an e-mail and an international address', { email: 'a@example.com', international_address: ABROAD }, ['email', 'international-address'], false],
  ] as const)('with %s runs %j (medicare without IRN only: %s)', (_name, identifiers, runnable, medicareOnly) => {
    const plan = planIhiSearch(identifiers);
    expect(plan.runnable).toEqual(runnable);
    expect(plan.medicareWithoutIrnOnly).toBe(medicareOnly);
  });

  it('names, for each of the seven paths, the request fields that would unlock it', () => {
    expect(planIhiSearch({ medicare_irn: '3' }).searchPaths).toEqual([
      { path: 'ihi_number', missing: ['ihi_number'] },
      { path: 'medicare', missing: ['medicare_card_number'] },
      { path: 'dva', missing: ['dva_file_number'] },
      { path: 'mobile', missing: ['phone'] },
      { path: 'email', missing: ['email'] },
      { path: 'australian-street-address', missing: ['australian_street_address'] },
      { path: 'international-address', missing: ABROAD_PARTS },
    ]);
  });

  it.each(['address_line', 'postcode', 'state_province', 'country'] as const)(
    'cannot search an international address without its %s, and names it as missing',
    (part) => {
      const plan = planIhiSearch({ international_address: { ...ABROAD, [part]: undefined } as typeof ABROAD });
      expect(plan.runnable).toEqual([]);
      expect(plan.searchPaths.at(-1)).toEqual({ path: 'international-address', missing: [`international_address.${part}`] });
    },
  );
});

/** A port answering each path from a table; unlisted paths find no record. */
function scriptedPort(answers: Partial<Record<IhiSearchPath, IhiSearchResult | 'unreachable' | 'rejected'>>) {
  const asked: IhiSearchRequest[] = [];
  const contexts: HiCallContext[] = [];
  const port: HiServicePort = {
    async searchIhi(request, context) {
      asked.push(request);
      contexts.push(context);
      const answer = answers[request.path] ?? { kind: 'no_match' };
      if (answer === 'unreachable') throw new HiServiceUnreachableError();
      if (answer === 'rejected') throw new HiServiceRejectedError('Fatal', 'WSE0035');
      return answer;
    },
    async verifyProvider() {
      throw new Error('not used');
    },
  };
  return { port, asked, contexts };
}

const HI_CONTEXT = { hpio: '8003621566684455', userId: 'user-of-the-test' };

const FOUND = { kind: 'found', ihi_number: '8003601240022579', ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED' } as const;

describe('runIhiSearch', () => {
  it('stops at the first path that matches and reports none failed', async () => {
    const { port, asked } = scriptedPort({ ihi_number: FOUND });
    const run = await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, [...IHI_SEARCH_PATHS]);
    expect(run).toMatchObject({ kind: 'found', searchedPath: 'ihi_number', failedPaths: [] });
    expect(asked.map((r) => r.path)).toEqual(['ihi_number']);
  });

  it('falls through paths that find no record, in order, and lists them as failed', async () => {
    const { port, asked } = scriptedPort({ email: FOUND });
    const run = await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['medicare', 'mobile', 'email', 'international-address']);
    expect(run).toMatchObject({ kind: 'found', searchedPath: 'email', failedPaths: ['medicare', 'mobile'] });
    expect(asked.map((r) => r.path)).toEqual(['medicare', 'mobile', 'email']);
    expect(asked.every((r) => r.demographics === DEMOGRAPHICS)).toBe(true);
  });

  it('on no match names the last path tried as searched and the others as failed', async () => {
    const { port } = scriptedPort({});
    const run = await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['dva', 'mobile', 'australian-street-address']);
    expect(run).toEqual({ kind: 'no_match', searchedPath: 'australian-street-address', failedPaths: ['dva', 'mobile'] });
  });

  it('stops when the HI Service is unreachable, naming the path it was searching', async () => {
    const { port, asked } = scriptedPort({ medicare: 'unreachable', mobile: FOUND });
    const run = await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['ihi_number', 'medicare', 'mobile']);
    expect(run).toEqual({ kind: 'unreachable', searchedPath: 'medicare', failedPaths: ['ihi_number'] });
    expect(asked).toHaveLength(2);
  });

  it('appends each call it makes to attempts, with its answer and duration, up to the one that ends the walk', async () => {
    const { port } = scriptedPort({ mobile: 'unreachable' });
    const attempts: SearchAttempt[] = [];
    await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['medicare', 'dva', 'mobile', 'email'], attempts);
    expect(attempts.map(({ path, hiResult }) => [path, hiResult])).toEqual([['medicare', 'no_match'], ['dva', 'no_match'], ['mobile', 'unreachable']]);
    expect(attempts.every(({ durationMs }) => durationMs >= 0)).toBe(true);
    const found: SearchAttempt[] = [];
    await runIhiSearch(scriptedPort({ dva: FOUND }).port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['medicare', 'dva', 'mobile'], found);
    expect(found.map(({ path, hiResult }) => [path, hiResult])).toEqual([['medicare', 'no_match'], ['dva', 'found']]);
  });

  it('records a call that failed unexpectedly as failed before the failure propagates', async () => {
    const port: HiServicePort = {
      searchIhi: async () => {
        throw new TypeError('bug');
      },
      verifyProvider: async () => ({ kind: 'verified' }),
    };
    const attempts: SearchAttempt[] = [];
    await expect(runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['mobile', 'email'], attempts)).rejects.toThrow('bug');
    expect(attempts).toEqual([{ path: 'mobile', hiResult: 'error', durationMs: expect.any(Number) }]);
  });

  it('lets an unexpected adapter failure propagate', async () => {
    const port: HiServicePort = {
      searchIhi: async () => {
        throw new TypeError('bug');
      },
      verifyProvider: async () => ({ kind: 'verified' }),
    };
    await expect(runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['mobile'])).rejects.toThrow('bug');
  });
});

describe('runIhiSearch with a rejection', () => {
  it('stops at a rejection, recording it apart from unreachable and no match, with its severity and code', async () => {
    const { port, asked } = scriptedPort({ dva: 'rejected', mobile: FOUND });
    const attempts: SearchAttempt[] = [];
    const run = await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['medicare', 'dva', 'mobile'], attempts);
    expect(run).toEqual({ kind: 'unreachable', searchedPath: 'dva', failedPaths: ['medicare'], refused: true });
    expect(asked).toHaveLength(2);
    expect(attempts.map(({ path, hiResult, reason }) => [path, hiResult, reason])).toEqual([
      ['medicare', 'no_match', undefined],
      ['dva', 'rejected', 'Fatal WSE0035'],
    ]);
  });
});

/** A clock the test moves; signals made by abortAfter abort when it passes their deadline. */
function manualTimers(): BudgetTimers & { advance(ms: number): void; signalsMade: number } {
  let now = 0;
  const pending: Array<{ at: number; controller: AbortController }> = [];
  const timers = {
    signalsMade: 0,
    now: () => now,
    abortAfter(ms: number) {
      timers.signalsMade += 1;
      const controller = new AbortController();
      pending.push({ at: now + ms, controller });
      return controller.signal;
    },
    advance(ms: number) {
      now += ms;
      for (const timer of pending) if (timer.at <= now && !timer.controller.signal.aborted) timer.controller.abort();
    },
  };
  return timers;
}

describe('runIhiSearch within the budget', () => {
  const nobody = { ...DEMOGRAPHICS, family_name: 'Nobody' };
  const jessica = HI_DEMO_PATIENTS.activeVerified;
  const identifiers = { medicare_card_number: jessica.medicare_card_number, medicare_irn: jessica.medicare_irn, dva_file_number: jessica.dva_file_number, phone: jessica.phone, email: jessica.email };
  const PATHS: IhiSearchPath[] = ['medicare', 'dva', 'mobile', 'email'];

  function slowSimulator(timers: ReturnType<typeof manualTimers>, latencyMs: number) {
    const sleep = async (ms: number) => timers.advance(ms);
    return createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs, timeoutMs: 10_000, sleep });
  }

  it('gives every call the budget signal and the HPI-O and user of the request', async () => {
    const { port, contexts } = scriptedPort({});
    const budget = startSearchBudget(25_000, manualTimers());
    await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, ['medicare', 'dva'], [], budget);
    expect(contexts).toEqual([
      { ...HI_CONTEXT, signal: budget.signal },
      { ...HI_CONTEXT, signal: budget.signal },
    ]);
  });

  it('makes the budget signal only when a call reads it, timed to the same deadline', async () => {
    const timers = manualTimers();
    const instant = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs: 0, timeoutMs: 10_000 });
    const found = await runIhiSearch(instant, HI_CONTEXT, identifiers, DEMOGRAPHICS, PATHS, [], startSearchBudget(250, timers));
    expect(found).toMatchObject({ kind: 'found', searchedPath: 'medicare' });
    expect(timers.signalsMade).toBe(0);
    const budget = startSearchBudget(250, timers);
    timers.advance(200);
    const signal = budget.signal;
    expect(timers.signalsMade).toBe(1);
    timers.advance(49);
    expect(signal.aborted).toBe(false);
    timers.advance(1);
    expect(signal.aborted).toBe(true);
  });

  it('makes no call at all once the budget is spent before the first path', async () => {
    let now = 0;
    const timers: BudgetTimers = { now: () => now, abortAfter: () => new AbortController().signal };
    const { port, asked } = scriptedPort({});
    const budget = startSearchBudget(300, timers);
    now = 300;
    const attempts: SearchAttempt[] = [];
    const run = await runIhiSearch(port, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, PATHS, attempts, budget);
    expect(run).toEqual({ kind: 'unreachable', searchedPath: 'medicare', failedPaths: [], budgetSpent: true });
    expect(asked).toEqual([]);
    expect(attempts).toEqual([]);
  });

  it('abandons the call in flight when the budget runs out and tries no further path', async () => {
    const timers = manualTimers();
    const attempts: SearchAttempt[] = [];
    const run = await runIhiSearch(slowSimulator(timers, 100), HI_CONTEXT, identifiers, nobody, PATHS, attempts, startSearchBudget(250, timers));
    expect(run).toEqual({ kind: 'unreachable', searchedPath: 'mobile', failedPaths: ['medicare', 'dva'], budgetSpent: true });
    expect(attempts.map(({ path, hiResult }) => [path, hiResult])).toEqual([['medicare', 'no_match'], ['dva', 'no_match'], ['mobile', 'unreachable']]);
  });

  it('does not start another path once the budget is spent, even when no signal fired', async () => {
    let now = 0;
    const never = new AbortController().signal;
    const timers: BudgetTimers = { now: () => now, abortAfter: () => never };
    const { port, asked } = scriptedPort({});
    const counting: HiServicePort = { ...port, searchIhi: async (request, context) => { now += 200; return port.searchIhi(request, context); } };
    const run = await runIhiSearch(counting, HI_CONTEXT, ALL_IDENTIFIERS, DEMOGRAPHICS, PATHS, [], startSearchBudget(300, timers));
    expect(run).toEqual({ kind: 'unreachable', searchedPath: 'dva', failedPaths: ['medicare'], budgetSpent: true });
    expect(asked.map((r) => r.path)).toEqual(['medicare', 'dva']);
  });

  it('tries every path when the calls fit in the budget', async () => {
    const timers = manualTimers();
    const run = await runIhiSearch(slowSimulator(timers, 100), HI_CONTEXT, identifiers, nobody, PATHS, [], startSearchBudget(25_000, timers));
    expect(run).toEqual({ kind: 'no_match', searchedPath: 'email', failedPaths: ['medicare', 'dva', 'mobile'] });
    const found = await runIhiSearch(slowSimulator(timers, 100), HI_CONTEXT, identifiers, DEMOGRAPHICS, PATHS, [], startSearchBudget(25_000, timers));
    expect(found).toMatchObject({ kind: 'found', searchedPath: 'medicare' });
  });

  it('counts a call past the per-call timeout as unreachable, within the budget', async () => {
    const timers = manualTimers();
    const sleep = async (ms: number) => timers.advance(ms);
    const simulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES, latencyMs: 12_000, timeoutMs: 10_000, sleep });
    const run = await runIhiSearch(simulator, HI_CONTEXT, identifiers, DEMOGRAPHICS, PATHS, [], startSearchBudget(25_000, timers));
    expect(run).toEqual({ kind: 'unreachable', searchedPath: 'medicare', failedPaths: [] });
  });
});
