// Every setting the service reads, in one table, parsed once at start. The README's
// configuration table is checked against SETTINGS by a test, so the two cannot drift.
import { isIPv4 } from 'node:net';
import path from 'node:path';
import { readTracingSettings, type TracingSettings } from './platform/telemetry/tracing-settings.ts';

export type Mode = 'sandbox' | 'production';

interface Setting {
  env: string;
  default: string;
  meaning: string;
}

export const SETTINGS = {
  port: { env: 'PORT', default: '3000', meaning: 'TCP port the API listens on.' },
  host: { env: 'HOST', default: '127.0.0.1', meaning: 'Interface to bind (`0.0.0.0` to listen on every interface).' },
  mode: { env: 'ERX_MODE', default: 'sandbox', meaning: '`sandbox` (HI simulator, keys generated into the data directory) or `production` (explicit keys required).' },
  databaseUrl: { env: 'DATABASE_URL', default: '', meaning: 'PostgreSQL connection string. Empty: embedded SQLite in the data directory.' },
  databaseSchema: { env: 'ERX_DATABASE_SCHEMA', default: '', meaning: 'PostgreSQL schema to use (created if missing). Empty: the server default (`public`).' },
  dataDir: { env: 'ERX_DATA_DIR', default: './data', meaning: 'Directory of the SQLite file and of generated keys.' },
  basePath: { env: 'ERX_BASE_PATH', default: '', meaning: 'Path prefix the whole API is mounted under, e.g. `/external`.' },
  publicUrl: { env: 'ERX_PUBLIC_URL', default: '', meaning: 'External base URL of this service (used in printed examples). Empty: `http://HOST:PORT`.' },
  errorsBase: { env: 'ERX_ERRORS_BASE', default: 'https://api.erx.example/errors', meaning: 'Base URI of `error.type` problem types.' },
  tokenTtlSeconds: { env: 'ERX_TOKEN_TTL_SECONDS', default: '3600', meaning: 'Lifetime of access tokens, in seconds.' },
  jwtPrivateKey: { env: 'ERX_JWT_PRIVATE_KEY', default: '', meaning: 'RS256 signing key (PKCS#8 PEM). Required in production; generated into the data directory in sandbox.' },
  secretKey: { env: 'ERX_SECRET_KEY', default: '', meaning: 'Key (32 bytes, base64) that encrypts secrets and identifiers at rest and from which token page addresses are derived (changing it changes them). Required in production; generated in sandbox.' },
  rateLimitMax: { env: 'ERX_RATE_LIMIT_MAX', default: '600', meaning: 'Requests allowed per partner and organization in one window; 0 turns rate limiting off.' },
  rateLimitWindowSeconds: { env: 'ERX_RATE_LIMIT_WINDOW_SECONDS', default: '60', meaning: 'Length of the rate-limit window, in seconds.' },
  redisUrl: { env: 'REDIS_URL', default: '', meaning: 'Redis URL; when set, rate-limit counters are shared by every instance.' },
  trustProxy: { env: 'ERX_TRUST_PROXY', default: '', meaning: 'Proxies in front of the server, trusted for the client address in `X-Forwarded-For` (per-address limits): a hop count, or comma-separated addresses or CIDR ranges. Empty: the connecting address.' },
  bodyLimitBytes: { env: 'ERX_BODY_LIMIT_BYTES', default: '262144', meaning: 'Largest request body accepted, in bytes (413 above it).' },
  logLevel: { env: 'LOG_LEVEL', default: 'info', meaning: 'pino log level (`silent` to turn logs off).' },
  hiFixtures: { env: 'ERX_HI_FIXTURES', default: '', meaning: 'Path of an HI Service sandbox fixture file (JSON), merged with the built-in demo set.' },
  hiLatencyMs: { env: 'ERX_HI_LATENCY_MS', default: '0', meaning: 'Simulated HI Service latency per call in sandbox, in milliseconds.' },
  hiAdapter: { env: 'ERX_HI', default: '', meaning: 'The HI Service behind erx: `simulator` (the sandbox fixtures; refused in production) or `soap` (the national HI Service, settings below). Empty: `simulator` in sandbox, `soap` in production.' },
  hiTimeoutMs: { env: 'ERX_HI_TIMEOUT_MS', default: '10000', meaning: 'Longest wait for one HI Service call, in milliseconds; past it the call counts as unreachable.' },
  hiBudgetMs: { env: 'ERX_HI_BUDGET_MS', default: '25000', meaning: "Longest time one request may spend on HI Service calls across the precheck's search paths, in milliseconds; past it the remaining paths are not tried (`hi_service_error`)." },
  hiEndpoint: { env: 'ERX_HI_ENDPOINT', default: '', meaning: 'HTTPS URL of the HI Service B2B gateway (`ERX_HI=soap`).' },
  hiCert: { env: 'ERX_HI_CERT', default: '', meaning: "Path of erx's NASH certificate and key (erx acts as the organizations' Contracted Service Provider), a PKCS#12 file (`ERX_HI=soap`): mutual TLS and the message signature." },
  hiCertPassphrase: { env: 'ERX_HI_CERT_PASSPHRASE', default: '', meaning: 'Passphrase of the PKCS#12 file (`ERX_HI=soap`). Never logged.' },
  hiCa: { env: 'ERX_HI_CA', default: '', meaning: "Path of a PEM bundle trusted for the gateway's TLS and its signed answers. Empty: the system's trusted certificates." },
  hiVendorQualifier: { env: 'ERX_HI_VENDOR_QUALIFIER', default: '', meaning: 'Qualifier of the vendor id in the `product` header, as registered with Services Australia (`ERX_HI=soap`).' },
  hiVendorId: { env: 'ERX_HI_VENDOR_ID', default: '', meaning: 'Vendor id in the `product` header (`ERX_HI=soap`).' },
  hiProductName: { env: 'ERX_HI_PRODUCT_NAME', default: '', meaning: 'Product name in the `product` header, as registered (`ERX_HI=soap`).' },
  hiProductVersion: { env: 'ERX_HI_PRODUCT_VERSION', default: '', meaning: 'Product version in the `product` header, as registered (`ERX_HI=soap`).' },
  hiSignatureAlgorithm: { env: 'ERX_HI_SIGNATURE_ALGORITHM', default: 'rsa-sha1', meaning: 'Algorithm of the message signature: `rsa-sha1` (what the HI Service takes today) or `rsa-sha256`.' },
  hiDigestAlgorithm: { env: 'ERX_HI_DIGEST_ALGORITHM', default: 'sha1', meaning: 'Digest of the signed parts: `sha1` or `sha256`.' },
  hiCheckHpio: { env: 'ERX_HI_CHECK_HPIO', default: '', meaning: '`erx hi check`: the HPI-O the check asks on behalf of (a test organization of the vendor test environment).' },
  hiCheckHpii: { env: 'ERX_HI_CHECK_HPII', default: '', meaning: '`erx hi check`: the test provider\'s HPI-I.' },
  hiCheckFamilyName: { env: 'ERX_HI_CHECK_FAMILY_NAME', default: '', meaning: "`erx hi check`: the test provider's family name." },
  hiCheckGivenName: { env: 'ERX_HI_CHECK_GIVEN_NAME', default: '', meaning: "`erx hi check`: the test provider's given name." },
  hiCheckDateOfBirth: { env: 'ERX_HI_CHECK_DATE_OF_BIRTH', default: '', meaning: "`erx hi check`: the test provider's date of birth (YYYY-MM-DD)." },
  hiCheckSex: { env: 'ERX_HI_CHECK_SEX', default: '', meaning: "`erx hi check`: the test provider's sex (M, F, N or I)." },
  webhookTimeoutMs: { env: 'ERX_WEBHOOK_TIMEOUT_MS', default: '', meaning: "Timeout of one webhook attempt, in milliseconds. Empty: the spec's 10 s. Meant for tests; partners rely on the 10 s." },
  webhookMaxInFlight: { env: 'ERX_WEBHOOK_MAX_IN_FLIGHT', default: '16', meaning: 'Most webhook deliveries one process has in flight to one endpoint (a 429 halves it for a while).' },
  webhookPollMs: { env: 'ERX_WEBHOOK_POLL_MS', default: '1000', meaning: 'How often a dispatcher looks for due deliveries it was not woken for (other processes on SQLite, retries, expired leases), in milliseconds; at most 1000.' },
  portalUrl: { env: 'ERX_PORTAL_URL', default: '', meaning: 'Origin of the prescribing portal, used in the `redirect_url` of `POST /v1/sso`. Empty: the public URL.' },
  portalIdleTimeoutSeconds: { env: 'ERX_PORTAL_IDLE_TIMEOUT_SECONDS', default: '1800', meaning: 'A portal session ends after this many seconds without a request (60 to 43200).' },
  sandboxPublic: { env: 'ERX_SANDBOX_PUBLIC', default: '', meaning: '`1` lets sandbox mode (test helpers, webhooks to any address) bind a `HOST` other than loopback; without it such a start is refused.' },
  auditRetentionYears: { env: 'ERX_AUDIT_RETENTION_YEARS', default: '7', meaning: 'Years audit entries are kept before `erx audit prune` removes them: a whole number, at least 7 (Australian health records law; longer where a state requires it).' },
  metricsPort: { env: 'ERX_METRICS_PORT', default: '', meaning: 'TCP port of the Prometheus metrics listener (`GET /metrics`, bound to `HOST`), apart from the API\'s. Empty: no metrics listener.' },
  customDrugsMax: { env: 'ERX_CUSTOM_DRUGS_MAX', default: '10000', meaning: 'Most custom drugs one organization may hold, its users\' included (422 past it).' },
  retentionWebhookDays: { env: 'ERX_RETENTION_WEBHOOK_DAYS', default: '90', meaning: 'Webhook events whose deliveries all finished are deleted, with their deliveries and attempts, this many days after the event (`erx prune`, and hourly beside every dispatcher).' },
  retentionBodiesDays: { env: 'ERX_RETENTION_BODIES_DAYS', default: '30', meaning: 'Receivers\' response bodies kept on webhook attempts, in days; older attempts keep their row without the body.' },
} as const satisfies Record<string, Setting>;

export interface Config {
  port: number;
  host: string;
  mode: Mode;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  dataDir: string;
  basePath: string;
  publicUrl: string;
  errorsBase: string;
  tokenTtlSeconds: number;
  jwtPrivateKey: string | undefined;
  secretKey: string | undefined;
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  redisUrl: string | undefined;
  /** Fastify's trustProxy: false (the socket's address), a hop count, or trusted addresses/ranges. */
  trustProxy: false | number | string[];
  bodyLimitBytes: number;
  logLevel: string;
  hiFixtures: string | undefined;
  hiLatencyMs: number;
  /** ERX_HI; `soap` settings are checked when a server starts (runtime.ts), so other commands run without them. */
  hiAdapter: HiAdapterName;
  hiTimeoutMs: number;
  hiBudgetMs: number;
  /** The ERX_HI_* settings of the SOAP adapter as given (undefined: not set). */
  hiSoap: HiSoapConfig;
  /** `erx hi check`: the test provider (undefined: not set; the command may take flags instead). */
  hiCheck: HiCheckConfig;
  /** Undefined: the spec's 10 s (webhook-delivery-rules.ts). */
  webhookTimeoutMs: number | undefined;
  webhookMaxInFlight: number;
  webhookPollMs: number;
  portalUrl: string;
  portalIdleTimeoutSeconds: number;
  customDrugsMax: number;
  retentionWebhookDays: number;
  retentionBodiesDays: number;
  auditRetentionYears: number;
  /** Undefined: no metrics listener, and metrics are not kept. */
  metricsPort: number | undefined;
  /** From the standard OTEL_* variables (README, "Traces"); undefined: traces are off. */
  tracing: TracingSettings | undefined;
}

export type HiAdapterName = 'simulator' | 'soap';

export interface HiSoapConfig {
  endpoint: string | undefined;
  certPath: string | undefined;
  certPassphrase: string | undefined;
  caPath: string | undefined;
  vendorQualifier: string | undefined;
  vendorId: string | undefined;
  productName: string | undefined;
  productVersion: string | undefined;
  signatureAlgorithm: 'rsa-sha1' | 'rsa-sha256';
  digestAlgorithm: 'sha1' | 'sha256';
}

export interface HiCheckConfig {
  hpio: string | undefined;
  hpii: string | undefined;
  familyName: string | undefined;
  givenName: string | undefined;
  dateOfBirth: string | undefined;
  sex: string | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function readText(env: Env, key: keyof typeof SETTINGS): string {
  const setting = SETTINGS[key];
  const value = env[setting.env]?.trim();
  return value === undefined || value === '' ? setting.default : value;
}

function readOptional(env: Env, key: keyof typeof SETTINGS): string | undefined {
  return readText(env, key) || undefined;
}

function readInteger(env: Env, key: keyof typeof SETTINGS, min: number, max: number): number {
  const text = readText(env, key);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new ConfigError(`${SETTINGS[key].env} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function readBasePath(env: Env): string {
  const text = readText(env, 'basePath').replace(/\/+$/, '');
  if (text !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(text)) {
    throw new ConfigError(`ERX_BASE_PATH must look like /segment[/segment], got "${text}"`);
  }
  return text;
}

/** The portal's origin (scheme, host and port only): the SSO redirect_url is built on it. */
function readPortalUrl(env: Env, publicUrl: string): string {
  const text = readText(env, 'portalUrl').replace(/\/+$/, '');
  if (text === '') return publicUrl;
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== text) {
    throw new ConfigError(`ERX_PORTAL_URL must be an origin like https://portal.example.org (no path), got "${text}"`);
  }
  return text;
}

function readTrustProxy(env: Env): false | number | string[] {
  const text = readText(env, 'trustProxy');
  if (text === '') return false;
  if (/^\d+$/.test(text)) return readInteger(env, 'trustProxy', 1, 10);
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => !/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(entry))) {
    throw new ConfigError(`ERX_TRUST_PROXY must be a hop count or comma-separated addresses or CIDR ranges, got "${text}"`);
  }
  return entries;
}

function readChoice<Choice extends string>(env: Env, key: keyof typeof SETTINGS, choices: readonly Choice[]): Choice {
  const text = readText(env, key);
  if (!(choices as readonly string[]).includes(text)) throw new ConfigError(`${SETTINGS[key].env} must be ${choices.join(' or ')}, got "${text}"`);
  return text as Choice;
}

function readHiAdapter(env: Env, mode: Mode): HiAdapterName {
  if (readText(env, 'hiAdapter') === '') return mode === 'production' ? 'soap' : 'simulator';
  return readChoice(env, 'hiAdapter', ['simulator', 'soap'] as const);
}

function readHiEndpoint(env: Env): string | undefined {
  const text = readOptional(env, 'hiEndpoint');
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') throw new ConfigError(`ERX_HI_ENDPOINT must be an https URL, got "${text}"`);
  return text;
}

function readHiSoap(env: Env): HiSoapConfig {
  return {
    endpoint: readHiEndpoint(env),
    certPath: readOptional(env, 'hiCert'),
    certPassphrase: env[SETTINGS.hiCertPassphrase.env] || undefined,
    caPath: readOptional(env, 'hiCa'),
    vendorQualifier: readOptional(env, 'hiVendorQualifier'),
    vendorId: readOptional(env, 'hiVendorId'),
    productName: readOptional(env, 'hiProductName'),
    productVersion: readOptional(env, 'hiProductVersion'),
    signatureAlgorithm: readChoice(env, 'hiSignatureAlgorithm', ['rsa-sha1', 'rsa-sha256'] as const),
    digestAlgorithm: readChoice(env, 'hiDigestAlgorithm', ['sha1', 'sha256'] as const),
  };
}

function readHiCheck(env: Env): HiCheckConfig {
  return {
    hpio: readOptional(env, 'hiCheckHpio'),
    hpii: readOptional(env, 'hiCheckHpii'),
    familyName: readOptional(env, 'hiCheckFamilyName'),
    givenName: readOptional(env, 'hiCheckGivenName'),
    dateOfBirth: readOptional(env, 'hiCheckDateOfBirth'),
    sex: readOptional(env, 'hiCheckSex'),
  };
}

/** Never the API's own port: metrics are not for whoever can reach the API. */
function readMetricsPort(env: Env, apiPort: number): number | undefined {
  if (readText(env, 'metricsPort') === '') return undefined;
  const port = readInteger(env, 'metricsPort', 1, 65535);
  if (port === apiPort) throw new ConfigError(`ERX_METRICS_PORT must differ from PORT (${apiPort}): metrics are never served on the API's port`);
  return port;
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));

/** The sandbox serves test helpers and posts webhooks to any address: not to a network unless asked for. */
function refusePublicSandbox(env: Env, mode: Mode, host: string): void {
  if (mode !== 'sandbox' || isLoopbackHost(host)) return;
  const allowed = readText(env, 'sandboxPublic');
  if (allowed === '1') return;
  if (allowed !== '') throw new ConfigError(`ERX_SANDBOX_PUBLIC must be 1 or empty, got "${allowed}"`);
  throw new ConfigError(
    `sandbox mode listens only on loopback (HOST=127.0.0.1), got HOST="${host}": its test helpers and unguarded webhooks must not face a network. Set ERX_SANDBOX_PUBLIC=1 to serve it there anyway`,
  );
}

export function loadConfig(env: Env = process.env): Config {
  const mode = readText(env, 'mode');
  if (mode !== 'sandbox' && mode !== 'production') {
    throw new ConfigError(`ERX_MODE must be sandbox or production, got "${mode}"`);
  }
  const port = readInteger(env, 'port', 0, 65535);
  const host = readText(env, 'host');
  const publicUrl = readText(env, 'publicUrl').replace(/\/+$/, '') || `http://${host}:${port}`;
  const config: Config = {
    port,
    host,
    mode,
    databaseUrl: readOptional(env, 'databaseUrl'),
    databaseSchema: readOptional(env, 'databaseSchema'),
    dataDir: path.resolve(readText(env, 'dataDir')),
    basePath: readBasePath(env),
    publicUrl,
    errorsBase: readText(env, 'errorsBase').replace(/\/+$/, ''),
    tokenTtlSeconds: readInteger(env, 'tokenTtlSeconds', 60, 86_400),
    jwtPrivateKey: readOptional(env, 'jwtPrivateKey'),
    secretKey: readOptional(env, 'secretKey'),
    rateLimitMax: readInteger(env, 'rateLimitMax', 0, 1_000_000_000),
    rateLimitWindowSeconds: readInteger(env, 'rateLimitWindowSeconds', 1, 86_400),
    redisUrl: readOptional(env, 'redisUrl'),
    trustProxy: readTrustProxy(env),
    bodyLimitBytes: readInteger(env, 'bodyLimitBytes', 1024, 64 * 1024 * 1024),
    logLevel: readText(env, 'logLevel'),
    hiFixtures: readOptional(env, 'hiFixtures'),
    hiLatencyMs: readInteger(env, 'hiLatencyMs', 0, 60_000),
    hiAdapter: readHiAdapter(env, mode),
    hiTimeoutMs: readInteger(env, 'hiTimeoutMs', 100, 120_000),
    hiBudgetMs: readInteger(env, 'hiBudgetMs', 100, 600_000),
    hiSoap: readHiSoap(env),
    hiCheck: readHiCheck(env),
    webhookTimeoutMs: readText(env, 'webhookTimeoutMs') === '' ? undefined : readInteger(env, 'webhookTimeoutMs', 50, 60_000),
    webhookMaxInFlight: readInteger(env, 'webhookMaxInFlight', 1, 1_000),
    webhookPollMs: readInteger(env, 'webhookPollMs', 10, 1_000),
    portalUrl: readPortalUrl(env, publicUrl),
    portalIdleTimeoutSeconds: readInteger(env, 'portalIdleTimeoutSeconds', 60, 43_200),
    customDrugsMax: readInteger(env, 'customDrugsMax', 1, 10_000_000),
    // Up to 100 years: past that, keep everything by another route than a number of days.
    retentionWebhookDays: readInteger(env, 'retentionWebhookDays', 1, 36_500),
    retentionBodiesDays: readInteger(env, 'retentionBodiesDays', 1, 36_500),
    auditRetentionYears: readInteger(env, 'auditRetentionYears', 7, 100),
    metricsPort: readMetricsPort(env, port),
    tracing: readTracingSettings(env),
  };
  refusePublicSandbox(env, mode, host);
  if (config.databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(config.databaseSchema)) {
    throw new ConfigError(`ERX_DATABASE_SCHEMA must be a lower-case SQL identifier, got "${config.databaseSchema}"`);
  }
  if (mode === 'production' && (!config.jwtPrivateKey || !config.secretKey)) {
    throw new ConfigError('production mode needs ERX_JWT_PRIVATE_KEY and ERX_SECRET_KEY');
  }
  return config;
}
