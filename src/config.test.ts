import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from './config.ts';

describe('loadConfig', () => {
  it('gives the sandbox defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', mode: 'sandbox', databaseUrl: undefined, basePath: '', tokenTtlSeconds: 3600 });
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
    expect(config.portalUrl).toBe('http://127.0.0.1:3000');
    expect(config.portalIdleTimeoutSeconds).toBe(1800);
  });

  it('takes the portal origin from the public URL unless set', () => {
    expect(loadConfig({ ERX_PUBLIC_URL: 'https://erx.example.org/' }).portalUrl).toBe('https://erx.example.org');
    expect(loadConfig({ ERX_PUBLIC_URL: 'https://erx.example.org', ERX_PORTAL_URL: 'https://portal.example.org/' }).portalUrl).toBe('https://portal.example.org');
  });

  it('normalises the mount prefix and the errors base', () => {
    const config = loadConfig({ ERX_BASE_PATH: '/external/', ERX_ERRORS_BASE: 'https://x.example/errors/' });
    expect(config.basePath).toBe('/external');
    expect(config.errorsBase).toBe('https://x.example/errors');
  });

  it('trusts no proxy unless told: a hop count, or addresses and CIDR ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ ERX_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ERX_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
  });

  it.each([
    [{ ERX_TRUST_PROXY: 'true' }, /ERX_TRUST_PROXY must be a hop count or comma-separated addresses/],
    [{ ERX_TRUST_PROXY: '0' }, /ERX_TRUST_PROXY must be a whole number from 1 to 10/],
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be a whole number from 0 to 65535/],
    [{ ERX_MODE: 'staging' }, /ERX_MODE must be sandbox or production/],
    [{ ERX_BASE_PATH: 'external' }, /ERX_BASE_PATH must look like/],
    [{ ERX_TOKEN_TTL_SECONDS: '5' }, /ERX_TOKEN_TTL_SECONDS/],
    [{ ERX_DATABASE_SCHEMA: 'Robert"); drop' }, /ERX_DATABASE_SCHEMA/],
    [{ ERX_PORTAL_URL: 'https://portal.example.org/app' }, /ERX_PORTAL_URL must be an origin/],
    [{ ERX_PORTAL_URL: 'portal.example.org' }, /ERX_PORTAL_URL must be an origin/],
    [{ ERX_PORTAL_IDLE_TIMEOUT_SECONDS: '10' }, /ERX_PORTAL_IDLE_TIMEOUT_SECONDS must be a whole number from 60 to 43200/],
    [{ ERX_MODE: 'production' }, /production mode needs ERX_JWT_PRIVATE_KEY and ERX_SECRET_KEY/],
    [{ ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key' }, /production mode needs ERX_CONFORMANCE_ID: the conformance identifier .* \(PBS regulations s41A\)/],
    [{ ERX_CONFORMANCE_ID: 'ERX<script>' }, /ERX_CONFORMANCE_ID must be 1 to 64 letters, digits/],
  ])('rejects %o with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses sandbox mode on a HOST other than loopback unless ERX_SANDBOX_PUBLIC=1 says so', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1']) expect(loadConfig({ HOST: host }).host).toBe(host);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'erx.example.org']) {
      expect(() => loadConfig({ HOST: host })).toThrow(ConfigError);
      expect(() => loadConfig({ HOST: host })).toThrow(/sandbox mode listens only on loopback .*Set ERX_SANDBOX_PUBLIC=1/);
    }
    expect(loadConfig({ HOST: '0.0.0.0', ERX_SANDBOX_PUBLIC: '1' }).host).toBe('0.0.0.0');
    expect(() => loadConfig({ HOST: '0.0.0.0', ERX_SANDBOX_PUBLIC: 'yes' })).toThrow(/ERX_SANDBOX_PUBLIC must be 1 or empty/);
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key', ERX_CONFORMANCE_ID: 'ERX-TEST-0001' };
    expect(loadConfig({ ...production, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('chooses the PDS: the simulator in sandbox, none in production, the simulator refused there; its waits bounded', () => {
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key', ERX_CONFORMANCE_ID: 'ERX-TEST-0001' };
    expect(loadConfig({})).toMatchObject({ pdsAdapter: 'simulator', pdsTimeoutMs: 5000, pdsBudgetMs: 900_000, pdsWaitMs: 3000 });
    expect(loadConfig(production).pdsAdapter).toBe('none');
    expect(loadConfig({ ERX_PDS: 'none' }).pdsAdapter).toBe('none');
    expect(() => loadConfig({ ...production, ERX_PDS: 'simulator' })).toThrow(/ERX_PDS=simulator is refused in production mode/);
    expect(() => loadConfig({ ERX_PDS: 'erx' })).toThrow(/ERX_PDS must be simulator or none, got "erx"/);
    expect(() => loadConfig({ ERX_PDS_TIMEOUT_MS: '10' })).toThrow(/ERX_PDS_TIMEOUT_MS/);
  });

  it('reads the conformance id every script states: required in production, a plainly non-conformant default in sandbox', () => {
    expect(loadConfig({}).conformanceId).toBe('ERX-SANDBOX-NOT-CONFORMANT');
    expect(loadConfig({ ERX_CONFORMANCE_ID: ' CID-0042 ' }).conformanceId).toBe('CID-0042');
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key' };
    expect(loadConfig({ ...production, ERX_CONFORMANCE_ID: 'ADHA-CID-0042' }).conformanceId).toBe('ADHA-CID-0042');
  });

  it('production refuses plain http for Twilio and the public and portal URLs, and requires TLS of SMTP (issue 38 item 8)', () => {
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key', ERX_CONFORMANCE_ID: 'ERX-TEST-0001' };
    const twilio = { ERX_SMS_TWILIO_ACCOUNT_SID: 'AC1', ERX_SMS_TWILIO_AUTH_TOKEN: 'token', ERX_SMS_FROM: '+61400000000' };
    expect(() => loadConfig({ ...production, ...twilio, ERX_SMS_TWILIO_BASE_URL: 'http://api.twilio.test' })).toThrow(/production mode refuses an http ERX_SMS_TWILIO_BASE_URL/);
    expect(() => loadConfig({ ...production, ERX_PUBLIC_URL: 'http://erx.example' })).toThrow(/production mode refuses an http ERX_PUBLIC_URL/);
    expect(() => loadConfig({ ...production, ERX_PORTAL_URL: 'http://portal.example' })).toThrow(/production mode refuses an http ERX_PORTAL_URL/);
    expect(loadConfig({ ...production, ...twilio, ERX_PUBLIC_URL: 'https://erx.example' }).sms?.baseUrl).toBe('https://api.twilio.com');
    // The sandbox keeps its local fakes over http.
    expect(loadConfig({ ...twilio, ERX_SMS_TWILIO_BASE_URL: 'http://127.0.0.1:9' }).sms?.baseUrl).toBe('http://127.0.0.1:9');
    const smtp = { ERX_SMTP_URL: 'smtp://mail.example:587', ERX_SMTP_FROM: 'erx@example.org' };
    expect(loadConfig({ ...production, ...smtp }).smtp?.requireTls).toBe(true);
    expect(loadConfig(smtp).smtp?.requireTls).toBe(false);
  });

  it('binds the metrics listener to loopback unless ERX_METRICS_HOST says otherwise', () => {
    expect(loadConfig({ HOST: '0.0.0.0', ERX_SANDBOX_PUBLIC: '1' }).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ ERX_METRICS_HOST: '10.0.0.4' }).metricsHost).toBe('10.0.0.4');
  });

  it('reads the cap on custom drugs per organization, 10,000 unless set', () => {
    expect(loadConfig({}).customDrugsMax).toBe(10_000);
    expect(loadConfig({ ERX_CUSTOM_DRUGS_MAX: '25' }).customDrugsMax).toBe(25);
    expect(() => loadConfig({ ERX_CUSTOM_DRUGS_MAX: '0' })).toThrow(/ERX_CUSTOM_DRUGS_MAX must be a whole number from 1/);
  });

  it('reads the retention periods, 90 days of webhook history and 30 of response bodies unless set', () => {
    expect(loadConfig({})).toMatchObject({ retentionWebhookDays: 90, retentionBodiesDays: 30 });
    expect(loadConfig({ ERX_RETENTION_WEBHOOK_DAYS: '7', ERX_RETENTION_BODIES_DAYS: '1' })).toMatchObject({ retentionWebhookDays: 7, retentionBodiesDays: 1 });
  });

  it.each([
    ['ERX_RETENTION_WEBHOOK_DAYS', '0'],
    ['ERX_RETENTION_WEBHOOK_DAYS', '1.5'],
    ['ERX_RETENTION_WEBHOOK_DAYS', 'ninety'],
    ['ERX_RETENTION_BODIES_DAYS', '-3'],
    ['ERX_RETENTION_BODIES_DAYS', '0'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be a whole number from 1 to 36500, got "${value}"`));
  });

  it('keeps audit entries 7 years unless told longer, and refuses less or a fraction naming the variable', () => {
    expect(loadConfig({}).auditRetentionYears).toBe(7);
    expect(loadConfig({ ERX_AUDIT_RETENTION_YEARS: '10' }).auditRetentionYears).toBe(10);
    for (const bad of ['6', '0', '7.5', 'seven', '-8']) {
      expect(() => loadConfig({ ERX_AUDIT_RETENTION_YEARS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ERX_AUDIT_RETENTION_YEARS: bad })).toThrow(/ERX_AUDIT_RETENTION_YEARS must be a whole number from 7 to 100/);
    }
  });

  it('reads the metrics port: none unless set, never the API port', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ ERX_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ ERX_METRICS_PORT: 'metrics' })).toThrow(/ERX_METRICS_PORT must be a whole number from 1 to 65535, got "metrics"/);
    expect(() => loadConfig({ ERX_METRICS_PORT: '0' })).toThrow(/ERX_METRICS_PORT must be a whole number from 1 to 65535/);
    expect(() => loadConfig({ ERX_METRICS_PORT: '65536' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '8080', ERX_METRICS_PORT: '8080' })).toThrow(/ERX_METRICS_PORT must differ from PORT \(8080\)/);
  });

  it('takes token delivery settings all or none, naming the missing ones', () => {
    expect(loadConfig({}).sms).toBeUndefined();
    expect(loadConfig({}).smtp).toBeUndefined();
    expect(() => loadConfig({ ERX_SMS_TWILIO_ACCOUNT_SID: 'AC1' })).toThrow(/SMS delivery \(Twilio\) is partly configured: set ERX_SMS_TWILIO_AUTH_TOKEN, ERX_SMS_FROM too/);
    expect(() => loadConfig({ ERX_SMS_FROM: '+61400000000', ERX_SMS_TWILIO_AUTH_TOKEN: 'x' })).toThrow(/set ERX_SMS_TWILIO_ACCOUNT_SID too/);
    expect(() => loadConfig({ ERX_SMTP_URL: 'smtp://h:25' })).toThrow(/E-mail delivery \(SMTP\) is partly configured: set ERX_SMTP_FROM too/);
    expect(() => loadConfig({ ERX_SMTP_URL: 'http://h', ERX_SMTP_FROM: 'a@b' })).toThrow(/ERX_SMTP_URL must look like smtp:/);
    const sms = { ERX_SMS_TWILIO_ACCOUNT_SID: 'AC1', ERX_SMS_TWILIO_AUTH_TOKEN: 't', ERX_SMS_FROM: '+61400000000' };
    expect(loadConfig(sms).sms).toEqual({ accountSid: 'AC1', authToken: 't', from: '+61400000000', baseUrl: 'https://api.twilio.com' });
    expect(() => loadConfig({ ...sms, ERX_SMS_TWILIO_BASE_URL: 'ftp://x' })).toThrow(/ERX_SMS_TWILIO_BASE_URL must be an http\(s\) origin/);
    expect(loadConfig({ ERX_SMTP_URL: 'smtps://u:p@mail.example:465', ERX_SMTP_FROM: 'rx@clinic.example' }).smtp).toEqual({ url: 'smtps://u:p@mail.example:465', from: 'rx@clinic.example', requireTls: false });
  });

  it('is documented in full in the configuration table of docs/operators/configuration.md', () => {
    const page = fs.readFileSync(new URL('../docs/operators/configuration.md', import.meta.url), 'utf8');
    for (const setting of Object.values(SETTINGS)) {
      expect(page, setting.env).toContain(`| \`${setting.env}\` |`);
    }
  });
});

describe('ERX_ENDPOINT_CHANGE_DELAY_MINUTES', () => {
  it('is 60 minutes in production and none in sandbox by default, and bounded to a week', () => {
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key', ERX_CONFORMANCE_ID: 'ERX-TEST-0001' };
    expect(loadConfig(production).endpointChangeDelayMinutes).toBe(60);
    expect(loadConfig({}).endpointChangeDelayMinutes).toBe(0);
    expect(loadConfig({ ERX_ENDPOINT_CHANGE_DELAY_MINUTES: '5' }).endpointChangeDelayMinutes).toBe(5);
    expect(loadConfig({ ...production, ERX_ENDPOINT_CHANGE_DELAY_MINUTES: '0' }).endpointChangeDelayMinutes).toBe(0);
    expect(() => loadConfig({ ERX_ENDPOINT_CHANGE_DELAY_MINUTES: '10081' })).toThrow(/ERX_ENDPOINT_CHANGE_DELAY_MINUTES must be a whole number from 0 to 10080/);
  });
});

describe('ERX_RTPM', () => {
  it('is the simulator in sandbox and none in production by default, and refuses the simulator in production', () => {
    expect(loadConfig({}).rtpm).toBe('simulator');
    expect(loadConfig({ ERX_RTPM: 'none' }).rtpm).toBe('none');
    expect(() => loadConfig({ ERX_RTPM: 'safescript' })).toThrow(ConfigError);
    const production = { ERX_MODE: 'production', ERX_RTPM: 'simulator' };
    expect(() => loadConfig(production)).toThrow(/ERX_RTPM|ERX_/);
  });
});
