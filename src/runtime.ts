// Assembles what the CLI and the server run on from configuration: the database (migrated),
// keys, clock, rate limiter and logger. Sandbox mode generates missing keys into the data dir.
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import type { AppDeps } from './app-deps.ts';
import { generateSigningKeyPem, readOrCreateKeyFile, signingKeysFromPem, type SigningKeys } from './auth/signing-keys.ts';
import { ConfigError, type Config } from './config.ts';
import { createHiSandboxSimulator, loadHiSandboxFixtures, type HiServicePort } from './hi-service/index.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { openDatabase, sqliteFileIn, type DatabaseHandle } from './platform/database.ts';
import { createLogger } from './platform/logger.ts';
import { migrateToLatest } from './platform/migrator.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, unlimitedRateLimiter, type RateLimiter } from './platform/rate-limiter.ts';
import { parseSecretKey } from './platform/secrets.ts';

export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    sqliteFile: sqliteFileIn(config.dataDir),
  });
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

export async function loadSigningKeys(config: Config): Promise<SigningKeys> {
  const pem = config.jwtPrivateKey ?? readOrCreateKeyFile(config.dataDir, 'jwt-signing-key.pem', generateSigningKeyPem);
  return signingKeysFromPem(pem.replace(/\\n/g, '\n'));
}

export function loadSecretKey(config: Config): Buffer {
  const base64 = config.secretKey ?? readOrCreateKeyFile(config.dataDir, 'secret.key', () => randomBytes(32).toString('base64')).trim();
  return parseSecretKey(base64);
}

export function createRateLimiter(config: Config, clock: Clock, onError: (error: Error) => void): RateLimiter {
  if (config.rateLimitMax === 0) return unlimitedRateLimiter;
  const settings = { max: config.rateLimitMax, windowSeconds: config.rateLimitWindowSeconds };
  return config.redisUrl ? createRedisRateLimiter({ ...settings, url: config.redisUrl, onError }) : createMemoryRateLimiter(settings, clock);
}

export function createHiService(config: Config): HiServicePort {
  if (config.mode === 'production') {
    throw new ConfigError('production mode needs a real HI Service adapter, which this build does not include yet');
  }
  return createHiSandboxSimulator({ fixtures: loadHiSandboxFixtures(config.hiFixtures), latencyMs: config.hiLatencyMs });
}

export async function assembleDeps(config: Config, options: { logDestination?: DestinationStream } = {}): Promise<AppDeps> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const hiService = createHiService(config);
  const database = await openConfiguredDatabase(config);
  let warned = false;
  const rateLimiter = createRateLimiter(config, systemClock, (error) => {
    if (!warned) logger.warn({ err: error }, 'rate limiter store unreachable; allowing requests');
    warned = true;
  });
  return {
    config,
    database,
    keys: await loadSigningKeys(config),
    secretKey: loadSecretKey(config),
    clock: systemClock,
    rateLimiter,
    logger,
    hiService,
  };
}
