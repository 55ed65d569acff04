import { describe, expect, it } from 'vitest';
import {
  HiServiceUnreachableError,
  IHI_SEARCH_PATHS,
  type HiServicePort,
  type IhiSearchPath,
  type IhiSearchRequest,
  type IhiSearchResult,
} from '../hi-service/index.ts';
import { IHI_SEARCH_ORDER, planIhiSearch, runIhiSearch, type SearchAttempt } from './ihi-search.ts';

const ADDRESS = { street_number: '1', street_name: 'Main St', suburb: 'Carlton', state: 'VIC', postcode: '3053' };
const ABROAD = { address_line: '1 Queen St', country: 'NZ' };
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
      [7, 'international-address', ['international_address']],
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
      { path: 'international-address', missing: ['international_address'] },
    ]);
  });
});

/** A port answering each path from a table; unlisted paths find no record. */
function scriptedPort(answers: Partial<Record<IhiSearchPath, IhiSearchResult | 'unreachable'>>) {
  const asked: IhiSearchRequest[] = [];
  const port: HiServicePort = {
    async searchIhi(request) {
      asked.push(request);
      const answer = answers[request.path] ?? { kind: 'no_match' };
      if (answer === 'unreachable') throw new HiServiceUnreachableError();
      return answer;
    },
    async verifyProvider() {
      throw new Error('not used');
    },
  };
  return { port, asked };
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
    expect(attempts).toEqual([{ path: 'mobile', hiResult: 'failed', durationMs: expect.any(Number) }]);
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
