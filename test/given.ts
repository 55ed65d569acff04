// Small factories for integration tests: a partner, an organization that enabled it, users,
// and tokens, created through the same services the operator CLI uses.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestApp, TEST_DATABASE_URL, type TestApp, type TestAppOptions } from './test-app.ts';
import { requestableScopes } from '../src/auth/scopes.ts';
import { createOrganization, createPartner, enablePartnerForOrganization, createUser, setOrganizationPractice } from '../src/onboarding/index.ts';
import { DEMO_HPIO, DEMO_PRACTICE } from '../src/onboarding/sandbox-seed.ts';
import { type PracticeInput } from '../src/onboarding/organization-practice.ts';

let counter = 0;
const unique = () => `${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

const ctx = (t: TestApp) => t.features.onboarding;

export interface GivenIntegration {
  partnerId: string;
  partnerSecret: string;
  organizationId: string;
  organizationSecret: string;
  /** A prescriber (role provider). */
  userId: string;
  /** An owner and admin. */
  ownerId: string;
}

export async function givenPartner(t: TestApp, partnerId = `partner-${unique()}`) {
  return createPartner(ctx(t), { partnerId });
}

export async function givenUser(t: TestApp, organizationId: string, roles: string[] = ['provider']) {
  const tag = unique();
  return createUser(ctx(t), {
    organizationId,
    email: `user-${tag}@example.test`,
    givenName: 'Test',
    familyName: `User ${tag}`.slice(0, 40),
    roles,
  });
}

/**
 * A partner enabled for a fresh organization (with an HPI-O and, unless `practice: null`, the
 * practice address and phone a prescription states), a prescriber and an owner.
 */
export async function givenIntegration(
  t: TestApp,
  options: { partner?: { partner_id: string; partner_secret: string }; scopes?: string[]; hpio?: string | null; practice?: PracticeInput | null } = {},
): Promise<GivenIntegration> {
  const partner = options.partner ?? (await givenPartner(t));
  const organization = await createOrganization(ctx(t), {
    name: `Clinic ${unique()}`,
    hpio: options.hpio === null ? undefined : (options.hpio ?? DEMO_HPIO),
    scopes: options.scopes,
  });
  if (options.practice !== null) await setOrganizationPractice(ctx(t), organization.organization_id, options.practice ?? DEMO_PRACTICE);
  await enablePartnerForOrganization(ctx(t), { organizationId: organization.organization_id, partnerId: partner.partner_id });
  const prescriber = await givenUser(t, organization.organization_id, ['provider']);
  const owner = await givenUser(t, organization.organization_id, ['owner', 'admin']);
  return {
    partnerId: partner.partner_id,
    partnerSecret: partner.partner_secret,
    organizationId: organization.organization_id,
    organizationSecret: organization.organization_secret,
    userId: prescriber.user_id,
    ownerId: owner.user_id,
  };
}

export function tokenHeaders(g: GivenIntegration, userId = g.userId): Record<string, string> {
  return {
    'x-partner-id': g.partnerId,
    'x-partner-secret': g.partnerSecret,
    'x-organization-id': g.organizationId,
    'x-organization-secret': g.organizationSecret,
    'x-user-id': userId,
  };
}

/** A token of `userId` (the prescriber by default) with `scope` (every scope the app's mode offers by default). */
export async function requestToken(t: TestApp, g: GivenIntegration, scope: string[] = requestableScopes(t.deps.config.mode), userId = g.userId): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: `${t.deps.config.basePath}/v1/token`,
    headers: tokenHeaders(g, userId),
    payload: { grantType: 'client_credentials', scope },
  });
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
  return response.json().data.accessToken as string;
}

export function bearer(token: string, g: GivenIntegration): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'x-organization-secret': g.organizationSecret };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One request through the app; an object or array payload goes as JSON, a string as it is. */
export function call(t: TestApp, method: Method, url: string, headers: Record<string, string>, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** `body` serialised as JSON whatever it is (a string becomes a JSON string), as a partner's client sends it. */
function sendJson(t: TestApp, method: Method, url: string, headers: Record<string, string>, body: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

/**
 * The one client shape of the integration tests: an integration, the headers of its prescriber
 * and its owner (each with a token of every scope unless given others), every feature's URLs,
 * and the patient calls made as the prescriber.
 */
export interface TestClient {
  g: GivenIntegration;
  /** The prescriber's access token. */
  token: string;
  /** Bearer headers of the prescriber (role provider). */
  prescriber: Record<string, string>;
  /** Bearer headers of the owner (roles owner and admin). */
  owner: Record<string, string>;
  usersUrl: string;
  userUrl(userId?: string, suffix?: string): string;
  catalogUrl: string;
  userDrugsUrl(userId?: string): string;
  patientsUrl(userId?: string): string;
  precheck(body: unknown, userId?: string): Promise<LightMyRequestResponse>;
  create(body: unknown, userId?: string): Promise<LightMyRequestResponse>;
  update(patientId: string, body: unknown, userId?: string): Promise<LightMyRequestResponse>;
}

/** A client of `g` holding these tokens (the owner's defaults to the prescriber's). */
export function clientFor(t: TestApp, g: GivenIntegration, token: string, ownerToken = token): TestClient {
  const prescriber = bearer(token, g);
  const organizationUrl = `/v1/organizations/${g.organizationId}`;
  const patientsUrl = (userId = g.userId) => `${organizationUrl}/users/${userId}/patients`;
  return {
    g,
    token,
    prescriber,
    owner: bearer(ownerToken, g),
    usersUrl: `${organizationUrl}/users`,
    userUrl: (userId = g.userId, suffix = '') => `${organizationUrl}/users/${userId}${suffix}`,
    catalogUrl: `${organizationUrl}/custom-drugs`,
    userDrugsUrl: (userId = g.userId) => `${organizationUrl}/users/${userId}/custom-drugs`,
    patientsUrl,
    precheck: (body, userId) => sendJson(t, 'POST', `${patientsUrl(userId)}/ihi-precheck`, prescriber, body),
    create: (body, userId) => sendJson(t, 'POST', patientsUrl(userId), prescriber, body),
    update: (patientId, body, userId) => sendJson(t, 'PUT', `${patientsUrl(userId)}/${patientId}`, prescriber, body),
  };
}

/** A fresh integration (see givenIntegration) and its client, every scope for both users. */
export async function givenClient(t: TestApp, options: Parameters<typeof givenIntegration>[1] = {}): Promise<TestClient> {
  const g = await givenIntegration(t, options);
  return clientFor(t, g, await requestToken(t, g), await requestToken(t, g, undefined, g.ownerId));
}

/** What a file's setup made: each value a stand-in (see useTestApp). */
export type TestAppHandle<Made> = { t: TestApp; c: TestClient } & Made;

/**
 * The setup a test file shares: one app for the file, closed after it, and a client of a fresh
 * organization, made once for the file or (`each: true`) before every test, plus what `setup`
 * makes from them. Call it where `beforeAll` could be called and keep what it returns:
 *
 *   const { t, c } = useTestApp({});
 *   const { t, c, api } = useTestApp({}, async (t, c) => ({ api: await givenSomething(t, c) }));
 *
 * The hooks make the values after the file is collected, so each returned value is a stand-in
 * that reads the current one (the latest client with `each: true`) whenever it is used inside a
 * test or hook. Using one while the file is being collected throws. `setup` returns objects
 * only (a stand-in cannot be a string or a number); its `c` replaces the default client.
 */
export function useTestApp<Made extends Record<string, object> = Record<never, never>>(
  options: TestAppOptions & { each?: boolean },
  setup?: (t: TestApp, c: TestClient) => Made | Promise<Made>,
): TestAppHandle<Made> {
  let made: Record<string, unknown> | undefined;
  let app: TestApp | undefined;
  const given = async () => {
    app!.hi.reset();
    const c = await givenClient(app!);
    made = { t: app, c, ...((await setup?.(app!, c)) ?? {}) };
  };
  beforeAll(async () => {
    app = await createTestApp(options);
    if (!options.each) await given();
  });
  if (options.each) beforeEach(given);
  afterAll(() => app?.close());
  return new Proxy({} as TestAppHandle<Made>, {
    get: (_, name) => (typeof name === 'string' ? standIn(() => made?.[name], name) : undefined),
  });
}

/** An object that forwards every read and write to what `current` returns when it happens. */
function standIn(current: () => unknown, name: string): object {
  const real = (): object => {
    const value = current();
    if (typeof value !== 'object' || value === null) throw new Error(`useTestApp's ${name} exists inside tests and hooks only (got ${String(value)})`);
    return value;
  };
  return new Proxy(
    {},
    {
      get(_, key) {
        const target = real();
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
      set: (_, key, value) => Reflect.set(real(), key, value),
      has: (_, key) => Reflect.has(real(), key),
      ownKeys: () => Reflect.ownKeys(real()),
      getOwnPropertyDescriptor(_, key) {
        const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
}

export interface TwoInstances {
  first: TestApp;
  /** A second instance on the first's database (PostgreSQL), or the first itself (SQLite). */
  second: TestApp;
  /** A client of an integration made on the first. */
  c: TestClient;
  /** Every log line of both instances, as one text. */
  logs(): string;
}

/** Two servers behind one load balancer, for races across instances; one server on SQLite. */
export function useTwoInstances(): TwoInstances {
  const pair = {} as TwoInstances;
  beforeAll(async () => {
    pair.first = await createTestApp();
    pair.second = TEST_DATABASE_URL ? await createTestApp({ sameDatabaseAs: pair.first }) : pair.first;
    pair.c = await givenClient(pair.first);
    pair.logs = () => [...pair.first.logs, ...(pair.second === pair.first ? [] : pair.second.logs)].join('\n');
  });
  afterAll(async () => {
    if (pair.second !== pair.first) await pair.second?.close();
    await pair.first?.close();
  });
  return pair;
}
