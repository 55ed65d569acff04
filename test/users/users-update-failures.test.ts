// PUT /v1/organizations/{organization_id}/users/{user_id}: the 422, 429 and 500 rows of the
// spec's status table (200 to 409 are in users-update.test.ts), "nothing is saved" proved by
// reading the whole stored state before and after every failure.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createMemoryRateLimiter } from '../../src/platform/http/rate-limiter.ts';
import { ANNA, expectNothingSaved, givenMember, givenProviderRecord, NO_STATUS_PROVIDER, providerDetails, storedRecord, TEST_PROVIDERS, UNREACHABLE_PROVIDER } from './users-given.ts';
import { call, givenClient, useTestApp } from '../given.ts';
import { createTestApp } from '../test-app.ts';

const { t, c } = useTestApp({ each: true });

function put(userId: string, body: unknown, headers = c.owner) {
  return () => call(t, 'PUT', c.userUrl(userId), headers, body);
}

describe('PUT users/{user_id}: 422 VALIDATION_ERROR', () => {
  it('reports every schema failure of provider_details as its own entry, saving nothing', async () => {
    const userId = await givenMember(t, c);
    const body = {
      full_name: '',
      provider_details: providerDetails(ANNA, {
        sex: 'X',
        date_of_birth: '01/01/1970',
        prescriber_number: '12345678901',
        provider_number: '12345678901',
        prescriber_type: 'Z',
        given_name: 7,
      }),
    };
    const response = await expectNothingSaved(t, put(userId, body), 422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
    const fields = response.json().error.validation.map((issue: { field: string }) => issue.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'full_name',
        'provider_details.sex',
        'provider_details.date_of_birth',
        'provider_details.prescriber_number',
        'provider_details.provider_number',
        'provider_details.prescriber_type',
        'provider_details.given_name',
      ]),
    );
    expect(response.json().error.validation.find((issue: { field: string }) => issue.field === 'provider_details.sex')).toEqual({
      field: 'provider_details.sex',
      message: 'must be one of: M, F, I, N',
      code: 'VALIDATION_ERROR',
    });
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('rejects a date of birth that is not a calendar date', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(ANNA, { date_of_birth: '1970-02-30' }) }), 422);
    expect(response.json().error.validation).toEqual([
      { field: 'provider_details.date_of_birth', message: 'must be a calendar date (YYYY-MM-DD)', code: 'VALIDATION_ERROR' },
    ]);
  });

  it.each([
    ['M without qualifications and prescriber_number', { prescriber_type: 'M' }, /^qualifications and prescriber_number are required with prescriber_type M/],
    ['M without prescriber_number', { prescriber_type: 'M', qualifications: 'MBBS' }, /^prescriber_number is required with prescriber_type M/],
    ['T without qualifications', { prescriber_type: 'T' }, /^qualifications is required with prescriber_type T/],
  ])('reports the type dependency (%s) as one combined entry on provider_details', async (_case, details, message) => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: details }), 422);
    expect(response.json().error.validation).toEqual([{ field: 'provider_details', message: expect.stringMatching(message), code: 'VALIDATION_ERROR' }]);
  });

  it('accepts type T without a prescriber_number', async () => {
    const userId = await givenMember(t, c);
    const details = providerDetails(ANNA, { prescriber_type: 'T' });
    delete details.prescriber_number;
    expect((await call(t, 'PUT', c.userUrl(userId), c.owner, { provider_details: details })).statusCode).toBe(200);
  });

  it('lists one REQUIRED_FIELD entry per identity field missing from both the request and the stored record', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: { given_name: 'Anna', sex: 'F' } }), 422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
    expect(response.json().error.validation).toEqual(
      ['hpii_number', 'family_name', 'date_of_birth'].map((name) => ({
        field: `provider_details.${name}`,
        message: expect.stringContaining(`provider_details.${name} is required`),
        code: 'REQUIRED_FIELD',
      })),
    );
    expect(t.hi.providerLookups).toEqual([]);
  });

  it('answers HI_SERVICE_NO_MATCH when the HPI-I does not match the demographics, saving nothing', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(ANNA, { date_of_birth: '1970-01-02' }) }), 422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
    expect(response.json().error.validation).toEqual([
      { field: 'provider_details.hpii_number', message: expect.stringContaining('do not retry the same values'), code: 'HI_SERVICE_NO_MATCH' },
    ]);
    expect(t.hi.providerLookups).toHaveLength(1);
  });

  it('answers HI_SERVICE_NOT_VERIFIED when the lookup returns no status, saving nothing', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(NO_STATUS_PROVIDER) }), 422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
    expect(response.json().error.validation).toEqual([
      { field: 'provider_details.hpii_number', message: expect.stringContaining('retry later'), code: 'HI_SERVICE_NOT_VERIFIED' },
    ]);
  });
});

describe('PUT users/{user_id}: 429 rate limit', () => {
  it('answers 429 once the budget is spent, saving nothing', async () => {
    const limited = await createTestApp({ rateLimiter: createMemoryRateLimiter({ max: 2, windowSeconds: 60 }, new ManualClock()) });
    try {
      // The client's two token requests spend the budget of the window.
      const local = await givenClient(limited);
      const response = await expectNothingSaved(limited, () => call(limited, 'PUT', local.userUrl(), local.owner, { provider_details: providerDetails() }), 429);
      expect(response.json().error.type).toMatch(/\/rate-limit$/);
      expect(limited.hi.providerLookups).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});

describe('PUT users/{user_id}: 500 INTERNAL_ERROR', () => {
  it('answers an unreachable HI Service, saving nothing', async () => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(UNREACHABLE_PROVIDER) }), 500);
    expect(response.json()).toMatchObject({ code: 'INTERNAL_ERROR', error: { type: expect.stringMatching(/\/internal-error$/) } });
    expect(response.json().error.detail).toMatch(/HI Service could not be reached/);
  });

  it('answers an unexpected fault without internals, saving nothing', async () => {
    const userId = await givenMember(t, c);
    t.hi.fault = new TypeError('secret internal detail');
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails() }), 500);
    expect(response.json().code).toBe('INTERNAL_ERROR');
    expect(response.body).not.toContain('secret internal detail');
  });

  it('answers an unreachable HI Service for an active record whose HPI-I changes, leaving the record as it was', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId, TEST_PROVIDERS.priya);
    const response = await expectNothingSaved(t, put(userId, { provider_details: providerDetails(UNREACHABLE_PROVIDER) }), 500);
    expect(response.json().code).toBe('INTERNAL_ERROR');
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active', hpii_number: TEST_PROVIDERS.priya.hpii_number });
  });
});
