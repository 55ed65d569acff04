// What buildApp needs from the outside world. The CLI assembles it from configuration;
// tests assemble it around a fresh database and a manual clock.
import type { Logger } from 'pino';
import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SigningKeys } from './auth/signing-keys.ts';
import type { Config } from './config.ts';
import type { HiServicePort } from './hi-service/index.ts';
import type { Clock } from './platform/clock.ts';
import type { DatabaseHandle } from './platform/database.ts';
import type { RateLimiter } from './platform/rate-limiter.ts';

export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  keys: SigningKeys;
  /** Encrypts webhook secrets at rest. */
  secretKey: Buffer;
  clock: Clock;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** The national HI Service (the sandbox simulator outside production). */
  hiService: HiServicePort;
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A feature's routes: registered under the API prefix with everything the app was built with. */
export type RouteModule = (app: App, deps: AppDeps) => void;
