// Factories and request helpers for the user route tests: an app whose HI Service counts the
// provider lookups it answers (and can be made to fail unexpectedly), clients for an
// organization's owner and prescriber, and provider identities the simulator verifies.
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import {
  createHiSandboxSimulator,
  HI_DEMO_FIXTURES,
  HI_DEMO_PROVIDERS,
  mergeHiFixtures,
  type HiProviderFixture,
  type HiServicePort,
  type ProviderVerificationRequest,
} from '../src/hi-service/index.ts';
import { snapshotDatabase } from './database-snapshot.ts';
import { bearer, givenIntegration, givenUser, requestToken, type GivenIntegration } from './given.ts';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.ts';

/** Two more verified providers (valid HPI-Is from the public HI test data), for HPI-I changes. */
export const TEST_PROVIDERS = {
  fred: { hpii_number: '8003610000010401', family_name: 'Citizen', given_name: 'Fred', date_of_birth: '1980-01-01', sex: 'M' },
  priya: { hpii_number: '8003610001647326', family_name: 'Jones', given_name: 'Priya', date_of_birth: '1982-03-04', sex: 'F' },
} satisfies Record<string, HiProviderFixture>;

export const ANNA = HI_DEMO_PROVIDERS.verified;
export const NO_STATUS_PROVIDER = HI_DEMO_PROVIDERS.withoutStatus;
export const UNREACHABLE_PROVIDER = HI_DEMO_PROVIDERS.unreachable;

/** The HI Service port of the tests: the sandbox simulator, every provider lookup recorded. */
export interface RecordingHiService extends HiServicePort {
  providerLookups: ProviderVerificationRequest[];
  /** When set, the next provider lookups throw it (an unexpected fault, not "unreachable"). */
  fault: Error | undefined;
  /** When set, runs while a lookup is in flight (to stage a racing request). */
  duringLookup: (() => Promise<void>) | undefined;
}

export function createRecordingHiService(): RecordingHiService {
  const simulator = createHiSandboxSimulator({
    fixtures: mergeHiFixtures({ patients: [], providers: Object.values(TEST_PROVIDERS) }, HI_DEMO_FIXTURES),
  });
  const port: RecordingHiService = {
    providerLookups: [],
    fault: undefined,
    duringLookup: undefined,
    searchIhi: (request) => simulator.searchIhi(request),
    async verifyProvider(request) {
      port.providerLookups.push(request);
      if (port.fault) throw port.fault;
      await port.duringLookup?.();
      return simulator.verifyProvider(request);
    },
  };
  return port;
}

export interface UsersTestApp extends TestApp {
  hi: RecordingHiService;
}

export async function createUsersTestApp(options: TestAppOptions = {}): Promise<UsersTestApp> {
  const hi = createRecordingHiService();
  const t = await createTestApp({ hiService: hi, ...options });
  return Object.assign(t, { hi });
}

/**
 * The hooks a users test file shares: one app for the file, and before each test a fresh
 * organization (so the demo providers' HPI-Is are free in it) with its clients, and the
 * recording HI Service cleared: no lookups recorded, no fault, nothing staged. `use` gets the
 * app and the test's client.
 */
export function useUsersTestApp(use: (t: UsersTestApp, c: UsersClient) => void): void {
  let app: UsersTestApp | undefined;
  beforeAll(async () => {
    app = await createUsersTestApp();
  });
  afterAll(() => app?.close());
  beforeEach(async () => {
    const client = await givenUsersClient(app!);
    app!.hi.providerLookups.length = 0;
    app!.hi.fault = undefined;
    app!.hi.duringLookup = undefined;
    use(app!, client);
  });
}

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

export interface UsersClient {
  g: GivenIntegration;
  /** Headers of the organization's owner (roles owner and admin), every scope. */
  owner: Record<string, string>;
  /** Headers of the prescriber (role provider), every scope. */
  prescriber: Record<string, string>;
  usersUrl: string;
  userUrl(userId?: string, suffix?: string): string;
}

export async function givenUsersClient(t: TestApp, options: Parameters<typeof givenIntegration>[1] = {}): Promise<UsersClient> {
  const g = await givenIntegration(t, options);
  const owner = bearer(await requestToken(t, g, undefined, g.ownerId), g);
  const prescriber = bearer(await requestToken(t, g, undefined, g.userId), g);
  const usersUrl = `/v1/organizations/${g.organizationId}/users`;
  return { g, owner, prescriber, usersUrl, userUrl: (userId = g.userId, suffix = '') => `${usersUrl}/${userId}${suffix}` };
}

type Method = 'GET' | 'POST' | 'PUT';

export function call(t: TestApp, method: Method, url: string, headers: Record<string, string>, payload?: unknown) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** A fresh user of the client's organization with the given roles. */
export async function givenMember(t: TestApp, c: UsersClient, roles: string[] = ['provider']): Promise<string> {
  return (await givenUser(t, c.g.organizationId, roles)).user_id;
}

/** Gives the user a verified, active provider record through the API. */
export async function givenProviderRecord(t: TestApp, c: UsersClient, userId: string, person: Omit<HiProviderFixture, 'fault'> = ANNA) {
  const response = await call(t, 'PUT', c.userUrl(userId), c.owner, { provider_details: providerDetails(person) });
  if (response.statusCode !== 200) throw new Error(`provider record not written: ${response.statusCode} ${response.body}`);
}

export async function storedRecord(t: TestApp, userId: string) {
  return t.deps.database.selectFrom('provider_records').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function storedUser(t: TestApp, userId: string) {
  return t.deps.database.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

export async function readUserData(t: TestApp, c: UsersClient, userId: string) {
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
