// Assembles the infrastructure everything runs on from configuration: the database
// (migrated), keys, clock, HI Service port, rate limiter and logger. Sandbox mode generates
// missing keys into the data directory. Features are built from it (features.ts).
import { randomBytes } from 'node:crypto';
import type { DestinationStream, Logger } from 'pino';
import { generateSigningKeyPemOffThread, readOrCreateKeyFile, readOrCreateKeyFileOffThread, signingKeysFromPem, type SigningKeys } from './platform/signing-keys.ts';
import { ConfigError, type Config } from './config.ts';
import type { Deps } from './deps.ts';
import { loadSoapAdapter, measureHiService, traceHiService, type HiServicePort } from './hi-service/index.ts';
import { createConfiguredHiService, type SoapAdapter } from './hi-runtime.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { openDatabase, sqliteFileIn, type DatabaseHandle } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrator.ts';
import { hashClearTokenPageKeys, sealClearValues } from './platform/db/sealed-columns.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, unlimitedRateLimiter, type RateLimiter } from './platform/http/rate-limiter.ts';
import { createLogger } from './platform/logger.ts';
import { NO_METRICS, type Metrics } from './platform/metrics/metrics.ts';
import { createPrometheusMetrics } from './platform/metrics/prometheus-metrics.ts';
import { parseSecretKey } from './platform/secrets.ts';
import { startTracing, TRACING_OFF } from './platform/telemetry/tracing.ts';

export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, databaseSchema: config.databaseSchema, sqliteFile: sqliteFileIn(config.dataDir) });
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** `erx migrate`: applies what is pending and says what that was. */
export async function migrateConfiguredDatabase(config: Config): Promise<{ database: string; applied: string[] }> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, databaseSchema: config.databaseSchema, sqliteFile: sqliteFileIn(config.dataDir) });
  try {
    return { database: database.describe, ...(await migrateToLatest(database)) };
  } finally {
    await database.close();
  }
}

export async function loadSigningKeys(config: Config): Promise<SigningKeys> {
  const pem = config.jwtPrivateKey ?? (await readOrCreateKeyFileOffThread(config.dataDir, 'jwt-signing-key.pem', generateSigningKeyPemOffThread));
  return signingKeysFromPem(pem.replace(/\\n/g, '\n'));
}

export function loadSecretKey(config: Config): Buffer {
  const base64 = config.secretKey ?? readOrCreateKeyFile(config.dataDir, 'secret.key', () => randomBytes(32).toString('base64')).trim();
  return parseSecretKey(base64);
}

/** Off (ERX_RATE_LIMIT_MAX=0) turns the credential-failure and per-address limits off too: they share this limiter. */
export function createRateLimiter(config: Config, clock: Clock, onError: (error: Error) => void, redisKeyPrefix?: string): RateLimiter {
  if (config.rateLimitMax === 0) return unlimitedRateLimiter;
  const settings = { max: config.rateLimitMax, windowSeconds: config.rateLimitWindowSeconds };
  return config.redisUrl
    ? createRedisRateLimiter({ ...settings, url: config.redisUrl, onError, keyPrefix: redisKeyPrefix })
    : createMemoryRateLimiter(settings, clock);
}

/** Stands in where the SOAP adapter was not loaded: hi-runtime.ts asks for it only when ERX_HI is soap. */
const SOAP_NOT_LOADED: SoapAdapter = {
  loadNashCertificate: () => {
    throw new Error('the HI Service SOAP adapter was not loaded (ERX_HI is not soap)');
  },
  createSoapHiService: () => {
    throw new Error('the HI Service SOAP adapter was not loaded (ERX_HI is not soap)');
  },
};

/** The SOAP adapter (src/hi-service/soap/) when the configuration chooses it: only then is it loaded. */
async function loadConfiguredSoapAdapter(config: Config): Promise<SoapAdapter | undefined> {
  return config.hiAdapter === 'soap' ? loadSoapAdapter() : undefined;
}

/**
 * The configured HI Service (hi-runtime.ts): a server refuses to start when it cannot work; a
 * CLI command that never asks the HI Service still runs. `soapAdapter`: loadConfiguredSoapAdapter's.
 */
export function createHiService(
  config: Config,
  options: { serving?: boolean; logger: Logger; metrics: Metrics; clock?: Clock; soapAdapter?: SoapAdapter },
): HiServicePort {
  return createConfiguredHiService(config, { ...options, clock: options.clock ?? systemClock, soapAdapter: options.soapAdapter ?? SOAP_NOT_LOADED });
}

export interface AssembleOptions {
  logDestination?: DestinationStream;
  /** Serving requests: the configured rate limiter. Otherwise (CLI commands) none is needed. */
  serving?: boolean;
  /** A long-running process (`erx serve`, `erx worker`): traces when configured. One-shot CLI commands make none. */
  traced?: boolean;
  /** A long-running process (serve, worker): it keeps metrics when ERX_METRICS_PORT is set. CLI commands never do. */
  exposeMetrics?: boolean;
  /** A command that asks the HI Service (`erx hi check`): the configured one must work, as for a server. */
  askHiService?: boolean;
}

/** Kept only by a process that exposes them: otherwise NO_METRICS, and recording costs nothing. */
export function createMetrics(config: Config, options: AssembleOptions = {}): Metrics {
  return options.exposeMetrics && config.metricsPort !== undefined ? createPrometheusMetrics() : NO_METRICS;
}

export async function assembleDeps(config: Config, options: AssembleOptions = {}): Promise<Deps> {
  // Made on the thread pool while the database opens (a fresh data directory's first start).
  const keys = loadSigningKeys(config);
  keys.catch(() => undefined); // awaited below; a failure before then is not left unhandled
  const logger = createLogger(config.logLevel, options.logDestination);
  const metrics = createMetrics(config, options);
  // Measured as a decorator of the port: neither the adapter nor its callers know of metrics.
  const soapAdapter = await loadConfiguredSoapAdapter(config);
  const untracedHiService = measureHiService(createHiService(config, { serving: options.serving || options.askHiService, logger, metrics, soapAdapter }), metrics);
  const database = await openConfiguredDatabase(config);
  const secretKey = loadSecretKey(config);
  // Values kept in clear before their column was encrypted (migrations 0070, 0071, 0081, 0082) are sealed before anything reads them.
  const sealed = (await sealClearValues(database, secretKey)) + (await hashClearTokenPageKeys(database, secretKey));
  if (sealed > 0) logger.info({ sealed }, 'stored values sealed under the secret key');
  const tracing = options.traced ? await startTracing(config.tracing) : TRACING_OFF;
  let warned = false;
  const rateLimiter = options.serving
    ? createRateLimiter(config, systemClock, (error) => {
        if (!warned) logger.warn({ err: error }, 'rate limiter store unreachable; allowing requests');
        warned = true;
      })
    : unlimitedRateLimiter;
  return {
    config,
    database,
    keys: await keys,
    secretKey,
    clock: systemClock,
    rateLimiter,
    logger,
    hiService: traceHiService(untracedHiService, tracing.tracer),
    tracing,
    metrics,
  };
}

/** Closes what assembleDeps opened. */
export async function closeDeps(deps: Deps): Promise<void> {
  try {
    await deps.rateLimiter.close();
    await deps.database.close();
  } finally {
    // Last: the spans of everything that stopped before it are flushed.
    await deps.tracing?.shutdown();
  }
}
