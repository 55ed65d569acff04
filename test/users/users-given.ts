// Factories for the user route tests: provider identities the simulator verifies, provider
// records given through the API, and reads of what was stored.
import { expect } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { type HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { call, givenUser, type TestClient } from '../given.ts';
import { TEST_PROVIDERS } from '../recording-hi-service.ts';
import type { TestApp } from '../test-app.ts';

export { TEST_PROVIDERS };

export const ANNA = HI_DEMO_PROVIDERS.verified;
export const NO_STATUS_PROVIDER = HI_DEMO_PROVIDERS.withoutStatus;
export const UNREACHABLE_PROVIDER = HI_DEMO_PROVIDERS.unreachable;

/** The prescriber fields a type-M provider needs, and a full identity. */
export function providerDetails(person: Omit<HiProviderFixture, 'fault'> = ANNA, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    hpii_number: person.hpii_number,
    given_name: person.given_name,
    family_name: person.family_name,
    date_of_birth: person.date_of_birth,
    sex: person.sex,
    prescriber_type: 'M',
    prescriber_number: '1234567',
    qualifications: 'MBBS',
    ...overrides,
  };
}

/** A fresh user of the client's organization with the given roles. */
export async function givenMember(t: TestApp, c: TestClient, roles: string[] = ['provider']): Promise<string> {
  return (await givenUser(t, c.g.organizationId, roles)).user_id;
}

/** Gives the user a verified, active provider record through the API. */
export async function givenProviderRecord(t: TestApp, c: TestClient, userId: string, person: Omit<HiProviderFixture, 'fault'> = ANNA) {
  const response = await call(t, 'PUT', c.userUrl(userId), c.owner, { provider_details: providerDetails(person) });
  if (response.statusCode !== 200) throw new Error(`provider record not written: ${response.statusCode} ${response.body}`);
}

/** The provider record's row as stored: the HPI-I sealed, beside its keyed hash. */
export async function storedRecordRow(t: TestApp, userId: string) {
  return t.deps.database.selectFrom('provider_records').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The stored row, with the HPI-I its sealed column holds opened (hpii_number). */
export async function storedRecord(t: TestApp, userId: string) {
  const row = await storedRecordRow(t, userId);
  return row && { ...row, hpii_number: decryptSecret(row.hpii_number_encrypted, t.deps.secretKey) };
}

export async function storedUser(t: TestApp, userId: string) {
  return t.deps.database.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

export async function readUserData(t: TestApp, c: TestClient, userId: string) {
  const response = await call(t, 'GET', c.userUrl(userId), c.owner);
  expect(response.statusCode).toBe(200);
  return response.json().data;
}

/** Runs `request`, expects `status`, and proves the stored state did not change. */
export async function expectNothingSaved<R extends { statusCode: number; body: string }>(t: TestApp, request: () => Promise<R>, status: number): Promise<R> {
  const before = await snapshotDatabase(t.deps.database);
  expect(Object.keys(before)).toEqual(expect.arrayContaining(['users', 'provider_records', 'organizations']));
  const response = await request();
  expect(response.statusCode, response.body).toBe(status);
  expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  return response;
}
