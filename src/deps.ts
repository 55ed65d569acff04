// What the features are built from: the infrastructure, as types only. runtime.ts assembles it
// from configuration; tests around a fresh database and a manual clock. Features import this,
// never runtime.ts, so they stay below the code that opens databases and reads key files.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { HiServicePort } from './hi-service/index.ts';
import type { ConfiguredPds } from './pds/index.ts';
import type { Clock } from './platform/clock.ts';
import type { DatabaseHandle } from './platform/db/database.ts';
import type { RateLimiter } from './platform/http/rate-limiter.ts';
import type { Metrics } from './platform/metrics/metrics.ts';
import type { SigningKeys } from './platform/signing-keys.ts';
import type { Tracing } from './platform/telemetry/tracing.ts';

/** What the features are built from. The CLI assembles it from configuration; tests around a fresh database and a manual clock. */
export interface Deps {
  config: Config;
  database: DatabaseHandle;
  /** Signs access tokens. */
  keys: SigningKeys;
  /** Encrypts webhook secrets and national identifiers at rest. */
  secretKey: Buffer;
  clock: Clock;
  /** Per (partner, organization) request budget; unlimited outside `erx serve`. */
  rateLimiter: RateLimiter;
  logger: Logger;
  /** The national HI Service (the sandbox simulator outside production). */
  hiService: HiServicePort;
  /** The Prescription Delivery Service; absent: the configured one (ERX_PDS), built over the database (features.ts). Tests pass a recording double. */
  pds?: ConfiguredPds;
  /** What the process measures about itself (ERX_METRICS_PORT); absent: NO_METRICS, nothing kept. */
  metrics?: Metrics;
  /** Traces (a serving process with OTEL_* set); absent or without a tracer: off. */
  tracing?: Tracing;
}
