// The provider record of a user: every row of the spec's state table, when the HI lookup runs
// (and when it does not), how full_name follows the provider names, who holds an HPI-I, and
// the spec's repair sequence end to end.
import { describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/platform/db/database.ts';
import { ANNA, expectNothingSaved, givenMember, givenProviderRecord, NO_STATUS_PROVIDER, providerDetails, readUserData, storedRecord, storedRecordRow, storedUser, TEST_PROVIDERS } from './users-given.ts';
import { call, useTestApp } from '../given.ts';

const { t, c } = useTestApp({ each: true });

const { fred, priya } = TEST_PROVIDERS;

function put(userId: string, body: unknown) {
  return call(t, 'PUT', c.userUrl(userId), c.owner, body);
}

/** A user whose record is inactive: it held Anna's HPI-I while disabled, and another user took it. */
async function givenInactiveRecord(): Promise<{ userId: string; taker: string }> {
  const userId = await givenMember(t, c);
  await givenProviderRecord(t, c, userId);
  expect((await call(t, 'PUT', c.userUrl(userId, '/disable'), c.owner)).statusCode).toBe(200);
  const taker = await givenMember(t, c);
  expect((await put(taker, { provider_details: providerDetails() })).statusCode).toBe(200);
  expect((await call(t, 'PUT', c.userUrl(userId, '/enable'), c.owner)).statusCode).toBe(200);
  expect(await storedRecord(t, userId)).toMatchObject({ status: 'inactive' });
  t.hi.providerLookups.length = 0;
  return { userId, taker };
}

describe('provider record: no record, or record not active', () => {
  it('no record + lookup succeeds: the record is created, active', async () => {
    const userId = await givenMember(t, c);
    expect(await storedRecord(t, userId)).toBeUndefined();
    expect((await put(userId, { provider_details: providerDetails() })).statusCode).toBe(200);
    expect(t.hi.providerLookups).toHaveLength(1);
    expect(await storedRecord(t, userId)).toMatchObject({
      status: 'active',
      organization_id: c.g.organizationId,
      hpii_number: ANNA.hpii_number,
      given_name: 'Anna',
      family_name: 'Smith',
      date_of_birth: '1970-01-01',
      sex: 'F',
      prescriber_type: 'M',
      prescriber_number: '1234567',
      qualifications: 'MBBS',
      verified_at: t.clock.now().toISOString(),
    });
  });

  it('record not active + lookup succeeds: the record is updated and active again', async () => {
    const { userId } = await givenInactiveRecord();
    const response = await put(userId, { provider_details: providerDetails(fred, { qualifications: 'FRACGP' }) });
    expect(response.statusCode).toBe(200);
    expect(t.hi.providerLookups).toEqual([expect.objectContaining({ hpii_number: fred.hpii_number })]);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active', hpii_number: fred.hpii_number, qualifications: 'FRACGP' });
  });

  it('record not active: a lookup runs even when nothing in the identity changes', async () => {
    const { userId, taker } = await givenInactiveRecord();
    // The taker leaves; the stored identity (Anna) is verified again from the stored values.
    expect((await call(t, 'PUT', c.userUrl(taker, '/disable'), c.owner)).statusCode).toBe(200);
    expect((await put(userId, { provider_details: {} })).statusCode).toBe(200);
    expect(t.hi.providerLookups).toEqual([
      { hpii_number: ANNA.hpii_number, given_name: 'Anna', family_name: 'Smith', date_of_birth: '1970-01-01', sex: 'F' },
    ]);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active' });
    expect(await storedRecord(t, taker)).toMatchObject({ status: 'inactive' });
  });

  it.each([
    ['HI_SERVICE_NO_MATCH', () => providerDetails(ANNA, { family_name: 'Smyth' })],
    ['HI_SERVICE_NOT_VERIFIED', () => providerDetails(NO_STATUS_PROVIDER)],
  ])('no record + %s: unchanged, nothing saved', async (code, details) => {
    const userId = await givenMember(t, c);
    const response = await expectNothingSaved(t, () => put(userId, { full_name: 'Dr A', provider_details: details() }), 422);
    expect(response.json().error.validation[0].code).toBe(code);
    expect(await storedRecord(t, userId)).toBeUndefined();
  });

  it('record not active + its HPI-I now held by an enabled user: 409, nothing saved, no lookup', async () => {
    const { userId } = await givenInactiveRecord();
    const response = await expectNothingSaved(t, () => put(userId, { provider_details: { prescriber_number: '1112223' } }), 409);
    expect(response.json().code).toBe('USER_ALREADY_EXISTS');
    expect(t.hi.providerLookups).toEqual([]);
  });

  it.each([
    ['HI_SERVICE_NO_MATCH', () => providerDetails(fred, { sex: 'F' })],
    ['HI_SERVICE_NOT_VERIFIED', () => providerDetails(NO_STATUS_PROVIDER)],
  ])('record not active + %s: unchanged, nothing saved', async (code, details) => {
    const { userId } = await givenInactiveRecord();
    const response = await expectNothingSaved(t, () => put(userId, { provider_details: details() }), 422);
    expect(response.json().error.validation[0].code).toBe(code);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'inactive', hpii_number: ANNA.hpii_number });
  });
});

describe('provider record: active record', () => {
  it.each([
    ['hpii_number', () => providerDetails(fred)],
    ['given_name', () => ({ given_name: 'Annabel' })],
    ['family_name', () => ({ family_name: 'Smyth' })],
    ['date_of_birth', () => ({ date_of_birth: '1971-01-01' })],
    ['sex', () => ({ sex: 'N' })],
  ])('a change of %s runs a fresh lookup with the merged identity set', async (_field, details) => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    t.hi.providerLookups.length = 0;
    await put(userId, { provider_details: details() });
    expect(t.hi.providerLookups).toHaveLength(1);
    const expected = { ...providerDetails(), ...details() } as Record<string, unknown>;
    expect(t.hi.providerLookups[0]).toEqual({
      hpii_number: expected.hpii_number,
      given_name: expected.given_name,
      family_name: expected.family_name,
      date_of_birth: expected.date_of_birth,
      sex: expected.sex,
    });
  });

  it('hpii_number change + lookup succeeds: the record is updated after the fresh lookup', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    const before = await storedRecord(t, userId);
    t.clock.advanceSeconds(60);
    expect((await put(userId, { provider_details: providerDetails(priya) })).statusCode).toBe(200);
    const after = await storedRecord(t, userId);
    expect(after).toMatchObject({ status: 'active', hpii_number: priya.hpii_number, given_name: 'Priya', created_at: before!.created_at });
    expect(after!.verified_at).not.toBe(before!.verified_at);
  });

  it.each([
    ['HI_SERVICE_NO_MATCH', { date_of_birth: '1971-01-01' }],
    ['HI_SERVICE_NOT_VERIFIED', providerDetails(NO_STATUS_PROVIDER)],
  ])('demographics or HPI-I change + %s: the record stays as it was, nothing saved', async (code, details) => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    const response = await expectNothingSaved(t, () => put(userId, { provider_details: details }), 422);
    expect(response.json().error.validation[0].code).toBe(code);
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active', hpii_number: ANNA.hpii_number, date_of_birth: '1970-01-01' });
  });

  it('no identity change: the record is updated without a lookup (only the fields sent change)', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    t.hi.providerLookups.length = 0;
    const body = { provider_details: { prescriber_number: '7654321', title: 'Dr', given_name: 'Anna', sex: 'F' } };
    expect((await put(userId, body)).statusCode).toBe(200);
    expect(t.hi.providerLookups).toEqual([]);
    expect(await storedRecord(t, userId)).toMatchObject({ prescriber_number: '7654321', title: 'Dr', qualifications: 'MBBS', status: 'active' });
  });

  it('an empty detail field unsets it', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    await put(userId, { provider_details: { title: 'Dr' } });
    expect((await put(userId, { provider_details: { title: '' } })).statusCode).toBe(200);
    expect((await storedRecord(t, userId))!.title).toBeNull();
  });

  it('no lookup when provider_details is not sent', async () => {
    const userId = await givenMember(t, c);
    await givenProviderRecord(t, c, userId);
    t.hi.providerLookups.length = 0;
    expect((await put(userId, { full_name: 'Dr Anna Smith' })).statusCode).toBe(200);
    expect(t.hi.providerLookups).toEqual([]);
  });
});

describe('full_name follows the provider names unless set explicitly', () => {
  it('takes the provider names when the record is created', async () => {
    const userId = await givenMember(t, c);
    await put(userId, { provider_details: providerDetails() });
    expect((await storedUser(t, userId)).full_name).toBe('Anna Smith');
  });

  it('keeps a full_name sent with the provider details', async () => {
    const userId = await givenMember(t, c);
    await put(userId, { full_name: 'Dr Anna Smith', provider_details: providerDetails() });
    expect((await storedUser(t, userId)).full_name).toBe('Dr Anna Smith');
  });

  it('is left alone by a change that does not touch the names, and follows a change of names', async () => {
    const userId = await givenMember(t, c);
    await put(userId, { full_name: 'Dr Anna Smith', provider_details: providerDetails() });
    await put(userId, { provider_details: { prescriber_number: '7654321' } });
    expect((await storedUser(t, userId)).full_name).toBe('Dr Anna Smith');
    await put(userId, { provider_details: providerDetails(priya) });
    expect((await storedUser(t, userId)).full_name).toBe('Priya Jones');
  });
});

describe('who holds an HPI-I', () => {
  it("a disabled holder's record gives way: it becomes inactive as the new record is written", async () => {
    const holder = await givenMember(t, c);
    await givenProviderRecord(t, c, holder);
    await call(t, 'PUT', c.userUrl(holder, '/disable'), c.owner);
    const userId = await givenMember(t, c);
    expect((await put(userId, { provider_details: providerDetails() })).statusCode).toBe(200);
    expect(await storedRecord(t, holder)).toMatchObject({ status: 'inactive' });
    expect(await storedRecord(t, userId)).toMatchObject({ status: 'active' });
  });

  it('an enabled holder blocks the write even after a role change (provider details are kept on downgrade)', async () => {
    const holder = await givenMember(t, c);
    await givenProviderRecord(t, c, holder);
    await call(t, 'PUT', c.userUrl(holder, '/roles'), c.owner, { access_roles: ['receptionist'] });
    const userId = await givenMember(t, c);
    expect((await put(userId, { provider_details: providerDetails() })).statusCode).toBe(409);
  });
});

describe('racing writes for one HPI-I', () => {
  it('an HPI-I taken by another request during the HI lookup makes the update a 409, nothing of it saved', async () => {
    const userId = await givenMember(t, c);
    const rival = await givenMember(t, c);
    t.hi.duringLookup = async () => {
      t.hi.duringLookup = undefined;
      expect((await put(rival, { provider_details: providerDetails() })).statusCode).toBe(200);
    };
    const response = await put(userId, { full_name: 'Dr Anna', provider_details: providerDetails() });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('USER_ALREADY_EXISTS');
    expect(await storedRecord(t, userId)).toBeUndefined();
    expect((await storedUser(t, userId)).full_name).not.toBe('Dr Anna');
  });

  it('the database refuses a second active record for one HPI-I in an organization', async () => {
    const [first, second] = [await givenMember(t, c), await givenMember(t, c)];
    await givenProviderRecord(t, c, first);
    const copy = { ...(await storedRecordRow(t, first))!, user_id: second };
    const insert = t.deps.database.insertInto('provider_records').values(copy).execute();
    await expect(insert).rejects.toSatisfy((error: unknown) => isUniqueViolation(error));
    await t.deps.database.insertInto('provider_records').values({ ...copy, status: 'inactive' }).execute();
  });
});

describe('the repair sequence for a user created partially', () => {
  it('PUT with corrected provider_details and all five identity fields, then read: can_prescribe is true', async () => {
    const created = await call(t, 'POST', c.usersUrl, c.owner, {
      given_name: 'Anna',
      family_name: 'Smith',
      email: `anna.${Date.now()}@repair.example`,
      access_roles: ['provider'],
      ...providerDetails(ANNA, { date_of_birth: '1970-10-01' }),
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().code).toBe('USER_CREATED_PROVIDER_NOT_FOUND');
    const userId = created.json().data.user_id;
    const partial = await readUserData(t, c, userId);
    expect(partial.provider_details).toBeNull();
    expect(partial.is_escript_ready.can_prescribe).toBe(false);

    const repaired = await put(userId, { provider_details: providerDetails(ANNA) });
    expect(repaired.statusCode).toBe(200);
    const ready = await readUserData(t, c, userId);
    expect(ready.is_escript_ready).toEqual({ can_prescribe: true });
    expect(ready.provider_details).toMatchObject({ hpii_number: ANNA.hpii_number, date_of_birth: '1970-01-01' });
  });
});
