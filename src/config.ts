// The service's configuration, parsed once at start from the settings of src/config-settings.ts;
// a bad value stops the start with a ConfigError that names the variable.
import { isIPv4 } from 'node:net';
import path from 'node:path';
import { SETTINGS } from './config-settings.ts';
import { ConfigError, readChoice, readGroup, readInteger, readOptional, readText, type Env, type Mode } from './config-readers.ts';
import { readHiAdapter, readHiCheck, readHiSoap, readPdsAdapter, readRtpm, readSandboxKill, type HiAdapterName, type HiCheckConfig, type HiSoapConfig, type PdsAdapterName } from './config-national.ts';
import { readTracingSettings, type TracingSettings } from './platform/telemetry/tracing-settings.ts';

export { SETTINGS, ConfigError };
export type { Mode, HiAdapterName, PdsAdapterName, HiSoapConfig, HiCheckConfig };


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
  /** ERX_CONFORMANCE_ID, or in sandbox SANDBOX_CONFORMANCE_ID. */
  conformanceId: string;
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
  /** ERX_RTPM: the real-time prescription monitoring behind the portal (src/rtpm/). */
  rtpm: 'simulator' | 'none';
  hiTimeoutMs: number;
  hiBudgetMs: number;
  /** The ERX_HI_* settings of the SOAP adapter as given (undefined: not set). */
  hiSoap: HiSoapConfig;
  /** ERX_PDS: the Prescription Delivery Service behind erx (src/pds/). */
  pdsAdapter: PdsAdapterName;
  pdsTimeoutMs: number;
  pdsBudgetMs: number;
  pdsWaitMs: number;
  /** ERX_SANDBOX_KILL_AFTER_PDS_SUBMIT=1 (sandbox only). */
  sandboxKillAfterPdsSubmit: boolean;
  /** `erx hi check`: the test provider (undefined: not set; the command may take flags instead). */
  hiCheck: HiCheckConfig;
  /** Undefined: the spec's 10 s (webhook-delivery-rules.ts). */
  webhookTimeoutMs: number | undefined;
  webhookMaxInFlight: number;
  webhookPollMs: number;
  /** How long a partner's change of its webhook URL waits before it takes effect (ERX_ENDPOINT_CHANGE_DELAY_MINUTES). */
  endpointChangeDelayMinutes: number;
  portalUrl: string;
  portalIdleTimeoutSeconds: number;
  customDrugsMax: number;
  retentionWebhookDays: number;
  retentionBodiesDays: number;
  retentionSecurityAlertDays: number;
  retentionTokenMessageDays: number;
  /** Days a database set aside by `erx restore` is kept before `erx prune` deletes it. */
  retentionBeforeRestoreDays: number;
  auditRetentionYears: number;
  /** Undefined: no metrics listener, and metrics are not kept. */
  metricsPort: number | undefined;
  /** The metrics listener's interface (ERX_METRICS_HOST), loopback unless told. */
  metricsHost: string;
  /** From the standard OTEL_* variables (docs/operators/traces.md); undefined: traces are off. */
  tracing: TracingSettings | undefined;
  /** One SMS or e-mail send, in ms (token delivery's own; its lease is two of these and a margin). */
  tokenMessageTimeoutMs: number;
  tokenMessagePollMs: number;
  /** Undefined: SMS tokens are kept, not sent. */
  sms: { accountSid: string; authToken: string; from: string; baseUrl: string } | undefined;
  /** Undefined: e-mailed tokens are kept, not sent. */
  /** requireTls: a plain smtp:// connection must upgrade with STARTTLS or fail (production). */
  smtp: { url: string; from: string; requireTls: boolean } | undefined;
}

/** A week at most: longer, a stolen secret's change would outlive any review; empty: 60 in production, none in sandbox (its partner is its developer). */
function readEndpointChangeDelay(env: Env, mode: Mode): number {
  if (readText(env, 'endpointChangeDelayMinutes') === '') return mode === 'production' ? 60 : 0;
  return readInteger(env, 'endpointChangeDelayMinutes', 0, 10_080);
}

function readSmsSettings(env: Env): Config['sms'] {
  const values = readGroup(env, ['smsTwilioAccountSid', 'smsTwilioAuthToken', 'smsFrom'], 'SMS delivery (Twilio)');
  if (!values) return undefined;
  const baseUrl = readText(env, 'smsTwilioBaseUrl').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(baseUrl)) throw new ConfigError(`ERX_SMS_TWILIO_BASE_URL must be an http(s) origin, got "${baseUrl}"`);
  const [accountSid, authToken, from] = values as [string, string, string];
  return { accountSid, authToken, from, baseUrl };
}

function readSmtpSettings(env: Env, mode: Mode): Config['smtp'] {
  const values = readGroup(env, ['smtpUrl', 'smtpFrom'], 'E-mail delivery (SMTP)');
  if (!values) return undefined;
  const [url, from] = values as [string, string];
  if (!/^smtps?:\/\/[^/]+/.test(url)) throw new ConfigError('ERX_SMTP_URL must look like smtp://user:pass@host:port or smtps://...');
  return { url, from, requireTls: mode === 'production' };
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

/** Never the API's own port: metrics are not for whoever can reach the API. */
function readMetricsPort(env: Env, apiPort: number): number | undefined {
  if (readText(env, 'metricsPort') === '') return undefined;
  const port = readInteger(env, 'metricsPort', 1, 65535);
  if (port === apiPort) throw new ConfigError(`ERX_METRICS_PORT must differ from PORT (${apiPort}): metrics are never served on the API's port`);
  return port;
}

export const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));

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

/**
 * Production sends tokens and links over the network: an http Twilio API or an http public or
 * portal URL (set so) would carry credentials and token links in clear (issue 38 item 8).
 */
function refusePlainHttp(env: Env, config: Config): void {
  if (config.sms && config.sms.baseUrl.startsWith('http:')) throw new ConfigError(`production mode refuses an http ERX_SMS_TWILIO_BASE_URL (${config.sms.baseUrl}): use https`);
  for (const key of ['publicUrl', 'portalUrl'] as const) {
    const text = readText(env, key);
    if (text.startsWith('http:')) throw new ConfigError(`production mode refuses an http ${SETTINGS[key].env} (${text}): use https`);
  }
}

/** What a sandbox states as its conformance id: plainly not one ADHA gave. */
export const SANDBOX_CONFORMANCE_ID = 'ERX-SANDBOX-NOT-CONFORMANT';

/** Every script states it (PBS regulations s41A): production refuses to start without one (loadConfig). */
function readConformanceId(env: Env): string {
  const text = readText(env, 'conformanceId');
  if (text !== '' && !/^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,63}$/.test(text)) throw new ConfigError(`ERX_CONFORMANCE_ID must be 1 to 64 letters, digits, spaces or . _ / -, got "${text.slice(0, 80)}"`);
  return text || SANDBOX_CONFORMANCE_ID;
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
    conformanceId: readConformanceId(env),
    rateLimitMax: readInteger(env, 'rateLimitMax', 0, 1_000_000_000),
    rateLimitWindowSeconds: readInteger(env, 'rateLimitWindowSeconds', 1, 86_400),
    redisUrl: readOptional(env, 'redisUrl'),
    trustProxy: readTrustProxy(env),
    bodyLimitBytes: readInteger(env, 'bodyLimitBytes', 1024, 64 * 1024 * 1024),
    logLevel: readText(env, 'logLevel'),
    hiFixtures: readOptional(env, 'hiFixtures'),
    hiLatencyMs: readInteger(env, 'hiLatencyMs', 0, 60_000),
    hiAdapter: readHiAdapter(env, mode),
    rtpm: readRtpm(env, mode),
    hiTimeoutMs: readInteger(env, 'hiTimeoutMs', 100, 120_000),
    hiBudgetMs: readInteger(env, 'hiBudgetMs', 100, 600_000),
    hiSoap: readHiSoap(env),
    hiCheck: readHiCheck(env),
    pdsAdapter: readPdsAdapter(env, mode),
    pdsTimeoutMs: readInteger(env, 'pdsTimeoutMs', 50, 120_000),
    pdsBudgetMs: readInteger(env, 'pdsBudgetMs', 100, 7 * 86_400_000),
    pdsWaitMs: readInteger(env, 'pdsWaitMs', 0, 60_000),
    sandboxKillAfterPdsSubmit: readSandboxKill(env, mode),
    webhookTimeoutMs: readText(env, 'webhookTimeoutMs') === '' ? undefined : readInteger(env, 'webhookTimeoutMs', 50, 60_000),
    webhookMaxInFlight: readInteger(env, 'webhookMaxInFlight', 1, 1_000),
    webhookPollMs: readInteger(env, 'webhookPollMs', 10, 1_000),
    endpointChangeDelayMinutes: readEndpointChangeDelay(env, mode),
    portalUrl: readPortalUrl(env, publicUrl),
    portalIdleTimeoutSeconds: readInteger(env, 'portalIdleTimeoutSeconds', 60, 43_200),
    customDrugsMax: readInteger(env, 'customDrugsMax', 1, 10_000_000),
    // Up to 100 years: past that, keep everything by another route than a number of days.
    retentionWebhookDays: readInteger(env, 'retentionWebhookDays', 1, 36_500),
    retentionBodiesDays: readInteger(env, 'retentionBodiesDays', 1, 36_500),
    retentionSecurityAlertDays: readInteger(env, 'retentionSecurityAlertDays', 1, 36_500),
    retentionTokenMessageDays: readInteger(env, 'retentionTokenMessageDays', 1, 36_500),
    retentionBeforeRestoreDays: readInteger(env, 'retentionBeforeRestoreDays', 1, 36_500),
    auditRetentionYears: readInteger(env, 'auditRetentionYears', 7, 100),
    metricsPort: readMetricsPort(env, port),
    metricsHost: readText(env, 'metricsHost') || '127.0.0.1',
    tracing: readTracingSettings(env),
    tokenMessageTimeoutMs: readInteger(env, 'tokenMessageTimeoutMs', 50, 60_000),
    tokenMessagePollMs: readInteger(env, 'tokenMessagePollMs', 10, 1_000),
    sms: readSmsSettings(env),
    smtp: readSmtpSettings(env, mode),
  };
  refusePublicSandbox(env, mode, host);
  if (config.databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(config.databaseSchema)) {
    throw new ConfigError(`ERX_DATABASE_SCHEMA must be a lower-case SQL identifier, got "${config.databaseSchema}"`);
  }
  if (mode === 'production' && (!config.jwtPrivateKey || !config.secretKey)) {
    throw new ConfigError('production mode needs ERX_JWT_PRIVATE_KEY and ERX_SECRET_KEY');
  }
  if (mode === 'production') refusePlainHttp(env, config);
  if (mode === 'production' && readText(env, 'conformanceId') === '') {
    throw new ConfigError('production mode needs ERX_CONFORMANCE_ID: the conformance identifier the Australian Digital Health Agency gave this software, which every prescription states (PBS regulations s41A)');
  }
  return config;
}
