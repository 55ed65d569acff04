// Builds the app on a fresh database for one test file: in-memory SQLite by default, or a
// private schema of the PostgreSQL at DATABASE_URL (dropped after the run, see global-setup.ts).
// Time is a ManualClock.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import { API_ROUTE_MODULES, buildApp, PORTAL_ROUTE_MODULES, type Surfaces } from '../src/app.ts';
import { checkResponseContract } from './response-contract.ts';
import { buildFeatures, type Features } from '../src/features.ts';
import type { App } from '../src/route-module.ts';
import type { Deps } from '../src/deps.ts';
import { generateSigningKeyPem, signingKeysFromPem, type SigningKeys } from '../src/platform/signing-keys.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { loadHiSandboxFixtures, type HiServicePort } from '../src/hi-service/index.ts';
import { ManualClock } from '../src/platform/clock.ts';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.ts';
import { createLogger } from '../src/platform/logger.ts';
import { migrateToLatest } from '../src/platform/db/migrator.ts';
import { unlimitedRateLimiter, type RateLimiter } from '../src/platform/http/rate-limiter.ts';
import { dropSchemas } from './global-setup.ts';
import { createRecordingHiService, type RecordingHiService } from './recording-hi-service.ts';
import { createPdsSimulator } from '../src/pds/pds-simulator.ts';
import { createRecordingPds, type RecordingPds } from './pds/recording-pds.ts';

let sharedKeys: Promise<SigningKeys> | undefined;

/** One RSA key per test process: generating one per app would dominate the suite's time. */
export function testSigningKeys(): Promise<SigningKeys> {
  return (sharedKeys ??= signingKeysFromPem(generateSigningKeyPem()));
}

export const TEST_DATABASE_URL = process.env.DATABASE_URL || undefined;

/** A schema name this run's teardown will drop: `<kind>_<run id>_<random>`. */
export function newTestSchemaName(kind: string): string {
  return `${kind}_${inject('testRunId')}_${randomBytes(5).toString('hex')}`;
}

export interface TestDatabase {
  handle: DatabaseHandle;
  schema: string | undefined;
  drop(): Promise<void>;
}

/**
 * A migrated, empty database: of the dialect this test run is for, or a private schema of the
 * PostgreSQL at `databaseUrl`. Its schema is dropped with it (global-setup.ts drops whatever a
 * file that failed to close left behind).
 */
export async function createTestDatabase(databaseUrl = TEST_DATABASE_URL, sqliteFile?: string): Promise<TestDatabase> {
  const schema = databaseUrl ? newTestSchemaName('t') : undefined;
  const handle = await openDatabase({ databaseUrl, databaseSchema: schema, poolSize: 4, ...(databaseUrl ? {} : { sqliteFile }) });
  const drop = async () => {
    await handle.close();
    if (databaseUrl && schema) await dropSchemas(databaseUrl, [schema]);
  };
  await migrateToLatest(handle).catch(async (error: unknown) => {
    await drop();
    throw error;
  });
  return { handle, schema, drop };
}

export interface TestApp {
  app: App;
  /** The PostgreSQL schema of the app's database (undefined on SQLite). */
  schema: string | undefined;
  deps: Deps;
  features: Features;
  /** The HI Service the app asks (unless the test passed its own port). */
  hi: RecordingHiService;
  /** The PDS the app submits to: the sandbox simulator (faults from ERX_HI_FIXTURES) behind a recording double that injects failures. */
  pds: RecordingPds;
  clock: ManualClock;
  /** Every log line the app wrote, as raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** A PostgreSQL of the test's own (test/own-servers.ts) instead of the run's database. */
  databaseUrl?: string;
  rateLimiter?: RateLimiter;
  /** Defaults to the recording simulator over the demo fixtures (plus ERX_HI_FIXTURES from env). */
  hiService?: HiServicePort;
  /** The route modules of the API and portal contexts (default: the app's own). */
  surfaces?: Surfaces;
  /** Runs after buildApp and before ready (add test-only routes here). */
  extend?: (app: App) => void;
  /** On SQLite, this file instead of memory (another process opens it too). */
  sqliteFile?: string;
  /** A second instance on the same database and keys, as a second server behind a load balancer (PostgreSQL only). */
  sameDatabaseAs?: TestApp;
}

/** Another connection pool to the schema of `first`; closing it leaves the schema to `first`. */
async function joinTestDatabase(first: TestApp): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL || !first.schema) throw new Error('a second instance on one database needs PostgreSQL (DATABASE_URL)');
  const handle = await openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: first.schema, poolSize: 4 });
  return { handle, schema: first.schema, drop: () => handle.close() };
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.sameDatabaseAs ? await joinTestDatabase(options.sameDatabaseAs) : await createTestDatabase(options.databaseUrl, options.sqliteFile);
  const clock = new ManualClock();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config: Config = loadConfig({ LOG_LEVEL: 'info', ERX_RATE_LIMIT_MAX: '0', ...options.env });
  const fixtures = loadHiSandboxFixtures(config.hiFixtures);
  const hi = createRecordingHiService(fixtures);
  const pds = createRecordingPds(createPdsSimulator({ db: database.handle, patients: fixtures.patients, now: () => clock.now() }), config.pdsTimeoutMs);
  const deps: Deps = {
    config,
    database: database.handle,
    keys: await testSigningKeys(),
    secretKey: options.sameDatabaseAs?.deps.secretKey ?? randomBytes(32),
    clock,
    rateLimiter: options.rateLimiter ?? unlimitedRateLimiter,
    logger: createLogger('info', sink),
    hiService: options.hiService ?? hi,
    ...(config.pdsAdapter === 'simulator' ? { pds: { port: pds, sandbox: pds } } : {}),
  };
  const features = buildFeatures(deps);
  const surfaces = options.surfaces ?? { api: API_ROUTE_MODULES, portal: PORTAL_ROUTE_MODULES };
  const checked = { api: [checkResponseContract, ...surfaces.api], portal: surfaces.portal };
  const app = await buildApp(deps, features, checked).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  try {
    options.extend?.(app);
    await app.ready();
  } catch (error) {
    await app.close().catch(() => {});
    await database.drop();
    throw error;
  }
  return {
    app,
    schema: database.schema,
    deps,
    features,
    hi,
    pds,
    clock,
    logs,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
