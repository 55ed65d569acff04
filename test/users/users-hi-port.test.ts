// Create user and update user as the HI Service port now has them: each lookup names the
// organization's HPI-O and the acting user; an inactive (deactivated or retired) HPI-I leaves
// the provider unverified with a clear detail; a rejection answers as an unreachable service
// (500, nothing saved) and is audited as rejected with its code.
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { type HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import { UNVERIFIED_ANSWERS } from '../../src/users/provider-verification.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { call, useTestApp } from '../given.ts';
import { expectNothingSaved, givenMember, providerDetails, storedRecord, TEST_PROVIDERS } from './users-given.ts';

const { t, c } = useTestApp({ each: true });

let counter = 0;
function createBody(person: Omit<HiProviderFixture, 'fault'>): Record<string, unknown> {
  const { given_name, family_name, ...details } = providerDetails(person);
  return { given_name, family_name, email: `hi.port.${process.pid}.${++counter}@clinic.example`, access_roles: ['provider'], ...details };
}
const createUser = (body: unknown) => call(t, 'POST', c.usersUrl, c.owner, body);
const updateUser = (userId: string, person: Omit<HiProviderFixture, 'fault'>) => call(t, 'PUT', c.userUrl(userId), c.owner, { provider_details: providerDetails(person) });

async function lookupEntriesAfter(seq: number) {
  return (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'hi.provider_verify');
}

describe('the context of every lookup', () => {
  it('create user and update user name the HPI-O of the organization and the acting user', async () => {
    const created = await createUser(createBody(HI_DEMO_PROVIDERS.verified));
    expect(created.json().code).toBe('USER_CREATED');
    const member = await givenMember(t, c);
    expect((await updateUser(member, TEST_PROVIDERS.fred)).statusCode).toBe(200);
    expect(t.hi.contexts).toEqual([
      { call: 'verifyProvider', hpio: DEMO_HPIO, userId: c.g.ownerId, hasSignal: false },
      { call: 'verifyProvider', hpio: DEMO_HPIO, userId: c.g.ownerId, hasSignal: false },
    ]);
  });
});

describe.each([
  ['deactivated', HI_DEMO_PROVIDERS.deactivated],
  ['retired', HI_DEMO_PROVIDERS.retired],
])('an HPI-I the HI Service holds as %s', (_status, person) => {
  it('update user: 422 HI_SERVICE_NOT_VERIFIED with the inactive detail, nothing saved', async () => {
    const member = await givenMember(t, c);
    const response = await expectNothingSaved(t, () => updateUser(member, person), 422);
    expect(response.json().error.validation).toEqual([
      { field: 'provider_details.hpii_number', message: UNVERIFIED_ANSWERS.inactive.message, code: 'HI_SERVICE_NOT_VERIFIED' },
    ]);
    expect(await storedRecord(t, member)).toBeUndefined();
  });

  it('create user: 201 USER_CREATED_PROVIDER_NOT_FOUND with the inactive warning, no provider record', async () => {
    const before = await lastAuditSeq(t);
    const response = await createUser(createBody(person));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().code).toBe('USER_CREATED_PROVIDER_NOT_FOUND');
    expect(response.json().data.warning).toBe(UNVERIFIED_ANSWERS.inactive.warning);
    expect(await storedRecord(t, response.json().data.user_id)).toBeUndefined();
    const [entry] = await lookupEntriesAfter(before);
    expect(entry).toMatchObject({ outcome: 'success' });
    expect(entry!.detail).toMatchObject({ hiResult: 'inactive' });
  });
});

describe('a rejection by the HI Service', () => {
  const refuser = HI_DEMO_PROVIDERS.rejected;

  it('update user: 500 as for an unreachable service, nothing saved, audited as rejected with its code', async () => {
    const member = await givenMember(t, c);
    const before = await lastAuditSeq(t);
    const response = await expectNothingSaved(t, () => updateUser(member, refuser), 500);
    expect(response.json().code).toBe('INTERNAL_ERROR');
    const [entry, ...others] = await lookupEntriesAfter(before);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ outcome: 'error' });
    expect(entry!.detail).toMatchObject({ hiResult: 'rejected', reason: 'Error HI_FIXTURE_REJECTED' });
  });

  it('create user: 500, no user created', async () => {
    const body = createBody(refuser);
    const response = await expectNothingSaved(t, () => createUser(body), 500);
    expect(response.json().code).toBe('INTERNAL_ERROR');
  });

  it('an unreachable service is audited as unreachable, without a reason', async () => {
    const member = await givenMember(t, c);
    const before = await lastAuditSeq(t);
    await updateUser(member, HI_DEMO_PROVIDERS.unreachable);
    const [entry] = await lookupEntriesAfter(before);
    expect(entry!.detail).toMatchObject({ hiResult: 'unreachable' });
    expect(entry!.detail).not.toHaveProperty('reason');
  });
});
