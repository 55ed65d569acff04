// Which HI Service a process asks (src/hi-runtime.ts): the simulator refused in production, the
// SOAP adapter refused without each of its settings (all named in one message), an expired NASH
// certificate refused, one expiring within 30 days warned about once (no secret in the line),
// and its days left a metric.
import { createHash, X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createHiSandboxSimulator } from '../../src/hi-service/index.ts';
import { loadNashCertificate } from '../../src/hi-service/soap/index.ts';
import { HI_DEMO_FIXTURES } from '../../src/hi-service/hi-demo-fixtures.ts';
import { checkHiChoice, createConfiguredHiService, daysLeftOf, type SoapAdapter } from '../../src/hi-runtime.ts';
import type { SoapHiSettings } from '../../src/hi-service/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { NO_METRICS } from '../../src/platform/metrics/metrics.ts';
import { createPrometheusMetrics } from '../../src/platform/metrics/prometheus-metrics.ts';
import { createTestCa, issueNashCertificate } from './test-pki.ts';

const directory = mkdtempSync(join(tmpdir(), 'erx-hi-runtime-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const PRODUCTION = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'pem', ERX_SECRET_KEY: 'key', ERX_CONFORMANCE_ID: 'ERX-TEST-CONFORMANCE-0001' };
const NOW = new Date('2026-11-22T00:00:00.000Z');
const ca = createTestCa('erx test CA', new Date(NOW.getTime() - 86_400_000 * 400));

function writeNash(name: string, validDays: number, now = NOW) {
  const nash = issueNashCertificate(ca, { now, validDays });
  const path = join(directory, `${name}.p12`);
  writeFileSync(path, nash.pfx);
  return { path, passphrase: nash.passphrase, notAfter: new Date(new X509Certificate(nash.certPem).validTo) };
}

const caPath = join(directory, 'ca.pem');
writeFileSync(caPath, ca.certPem);
/** Any well-formed pin: these tests stop before an answer is read. */
const SIGNER_PIN = createHash('sha256').update('the HI Service signing key').digest('base64');

function soapEnv(certPath: string, passphrase: string): Record<string, string> {
  return {
    ERX_HI: 'soap',
    ERX_HI_ENDPOINT: 'https://127.0.0.1:9/hi',
    ERX_HI_CERT: certPath,
    ERX_HI_CERT_PASSPHRASE: passphrase,
    ERX_HI_CA: caPath,
    ERX_HI_SIGNER_SPKI: SIGNER_PIN,
    ERX_HI_VENDOR_QUALIFIER: 'http://ns.electronichealth.net.au/id/hi/vendorid/1.0',
    ERX_HI_VENDOR_ID: 'ERX00000',
    ERX_HI_PRODUCT_NAME: 'erx',
    ERX_HI_PRODUCT_VERSION: '1.0',
  };
}

/** The adapter's own certificate reading; the settings it would be built with are kept, and the simulator answers. */
function recordingAdapter() {
  const handed: SoapHiSettings[] = [];
  const adapter: SoapAdapter = {
    loadNashCertificate,
    createSoapHiService(settings) {
      handed.push(settings);
      return createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES });
    },
  };
  return { adapter, handed };
}

function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  return { logger: createLogger('info', sink), lines };
}

describe('the choice of HI Service', () => {
  it('is the simulator in sandbox and the SOAP adapter in production unless ERX_HI says', () => {
    expect(loadConfig({}).hiAdapter).toBe('simulator');
    expect(loadConfig(PRODUCTION).hiAdapter).toBe('soap');
    expect(loadConfig({ ERX_HI: 'soap' }).hiAdapter).toBe('soap');
    expect(() => loadConfig({ ERX_HI: 'real' })).toThrow(/ERX_HI must be simulator or soap, got "real"/);
  });

  it('refuses the simulator in production', () => {
    expect(() => checkHiChoice(loadConfig({ ...PRODUCTION, ERX_HI: 'simulator' }))).toThrow(/ERX_HI=simulator is refused in production mode: the sandbox simulator is not a production HI Service/);
  });

  it('names every missing SOAP setting in one message, and only those', () => {
    expect(() => checkHiChoice(loadConfig(PRODUCTION))).toThrow(
      'ERX_HI=soap needs settings that are not set: ERX_HI_ENDPOINT, ERX_HI_CERT, ERX_HI_CERT_PASSPHRASE (or ERX_HI_CERT_PASSPHRASE_FILE), ERX_HI_CA, ERX_HI_SIGNER_SPKI, ERX_HI_VENDOR_QUALIFIER, ERX_HI_VENDOR_ID, ERX_HI_PRODUCT_NAME, ERX_HI_PRODUCT_VERSION',
    );
    const { ERX_HI_CERT_PASSPHRASE: _passphrase, ERX_HI_VENDOR_ID: _vendor, ...partial } = soapEnv('/nowhere.p12', 'secret');
    expect(() => checkHiChoice(loadConfig({ ...PRODUCTION, ...partial }))).toThrow(/not set: ERX_HI_CERT_PASSPHRASE \(or ERX_HI_CERT_PASSPHRASE_FILE\), ERX_HI_VENDOR_ID \(/);
    expect(() => checkHiChoice(loadConfig({ ...PRODUCTION, ...soapEnv('/nowhere.p12', 'secret') }))).not.toThrow();
  });

  it("refuses production without ERX_HI_CA and the answer signer's pin; the sandbox may go without them", () => {
    // Without them any certificate a public CA issued could sign the "HI Service's" answers.
    const { ERX_HI_CA: _ca, ERX_HI_SIGNER_SPKI: _pin, ...unpinned } = soapEnv('/nowhere.p12', 'secret');
    expect(() => checkHiChoice(loadConfig({ ...PRODUCTION, ...unpinned }))).toThrow(/ERX_HI=soap needs settings that are not set: ERX_HI_CA, ERX_HI_SIGNER_SPKI \(see docs\/operators\/hi-service\.md\)/);
    expect(() => checkHiChoice(loadConfig(unpinned))).not.toThrow();
  });

  it('refuses a signer pin that is not a base64 SHA-256 digest', () => {
    expect(() => loadConfig({ ERX_HI_SIGNER_SPKI: `${SIGNER_PIN},sha256/abc` })).toThrow(/ERX_HI_SIGNER_SPKI must be base64 SHA-256 digests \(44 characters\), comma-separated, got "sha256\/abc"/);
    expect(loadConfig({ ERX_HI_SIGNER_SPKI: ` ${SIGNER_PIN} , ${SIGNER_PIN}` }).hiSoap.signerSpkiPins).toEqual([SIGNER_PIN, SIGNER_PIN]);
  });

  it('checks the endpoint is an https URL and the algorithms are known', () => {
    expect(() => loadConfig({ ERX_HI_ENDPOINT: 'http://hi.example/x' })).toThrow(/ERX_HI_ENDPOINT must be an https URL/);
    expect(() => loadConfig({ ERX_HI_SIGNATURE_ALGORITHM: 'rsa-md5' })).toThrow(/ERX_HI_SIGNATURE_ALGORITHM must be rsa-sha1 or rsa-sha256/);
    expect(() => loadConfig({ ERX_HI_DIGEST_ALGORITHM: 'md5' })).toThrow(/ERX_HI_DIGEST_ALGORITHM must be sha1 or sha256/);
    expect(() => loadConfig({ ERX_HI_TIMEOUT_MS: '0' })).toThrow(/ERX_HI_TIMEOUT_MS must be a whole number/);
    expect(loadConfig({})).toMatchObject({ hiTimeoutMs: 10_000, hiBudgetMs: 25_000 });
  });

  it('lets a command that never asks the HI Service run without the settings, refusing only if asked', async () => {
    const { adapter, handed } = recordingAdapter();
    const port = createConfiguredHiService(loadConfig(PRODUCTION), { logger: capturedLogger().logger, metrics: NO_METRICS, clock: new ManualClock(NOW), soapAdapter: adapter });
    await expect(port.verifyProvider({ hpii_number: '8003619166667284', family_name: 'Smith', given_name: 'Anna', date_of_birth: '1970-01-01', sex: 'F' }, { hpio: '8003621566684455', userId: 'u' })).rejects.toThrow(ConfigError);
    expect(handed).toEqual([]);
  });

  it('refuses a server whose settings are missing, before reading any file', () => {
    const { adapter, handed } = recordingAdapter();
    expect(() => createConfiguredHiService(loadConfig(PRODUCTION), { serving: true, logger: capturedLogger().logger, metrics: NO_METRICS, clock: new ManualClock(NOW), soapAdapter: adapter })).toThrow(/ERX_HI_ENDPOINT, ERX_HI_CERT/);
    expect(handed).toEqual([]);
  });
});

describe('the NASH certificate at start', () => {
  const start = (env: Record<string, string>, options: { metrics?: ReturnType<typeof createPrometheusMetrics>; clock?: ManualClock } = {}) => {
    const { adapter, handed } = recordingAdapter();
    const { logger, lines } = capturedLogger();
    const run = () => createConfiguredHiService(loadConfig({ ...PRODUCTION, ...env }), { serving: true, logger, metrics: options.metrics ?? NO_METRICS, clock: options.clock ?? new ManualClock(NOW), soapAdapter: adapter });
    return { run, handed, lines };
  };

  it('starts quietly with a certificate valid for longer than 30 days, handing the adapter its settings', () => {
    const nash = writeNash('valid', 200);
    const { run, handed, lines } = start(soapEnv(nash.path, nash.passphrase));
    run();
    expect(lines).toEqual([]);
    expect(handed).toHaveLength(1);
    expect(handed[0]).toMatchObject({
      endpoint: 'https://127.0.0.1:9/hi',
      product: { vendorQualifier: 'http://ns.electronichealth.net.au/id/hi/vendorid/1.0', vendorId: 'ERX00000', productName: 'erx', productVersion: '1.0' },
      timeoutMs: 10_000,
      signatureAlgorithm: 'rsa-sha1',
      digestAlgorithm: 'sha1',
    });
    expect(handed[0]!.certificate.notAfter).toEqual(nash.notAfter);
    expect(handed[0]).toMatchObject({ trustedCaPem: ca.certPem, signerSpkiPins: [SIGNER_PIN] });
  });

  it('warns once, naming the expiry but no secret, when the certificate expires within 30 days', () => {
    const nash = writeNash('soon', 12);
    const { run, lines } = start(soapEnv(nash.path, nash.passphrase));
    run();
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 40, hiCertificateDaysLeft: 12, hiCertificateExpiresAt: nash.notAfter.toISOString() });
    expect(line.msg).toContain('expires in 12 days');
    expect(lines[0]).not.toContain(nash.passphrase);
  });

  it('refuses to start with an expired certificate', () => {
    const nash = writeNash('expired', 10, new Date(NOW.getTime() - 86_400_000 * 30));
    const { run, handed } = start(soapEnv(nash.path, nash.passphrase));
    expect(run).toThrow(/NASH certificate of ERX_HI_CERT expired at/);
    expect(handed).toEqual([]);
  });

  it('refuses a certificate file it cannot read, or a wrong passphrase, never printing the passphrase', () => {
    const nash = writeNash('other', 200);
    expect(start(soapEnv(join(directory, 'missing.p12'), nash.passphrase)).run).toThrow(/ERX_HI_CERT \(.*missing\.p12\) cannot be read: ENOENT/);
    const wrong = start(soapEnv(nash.path, 'not-the-passphrase'));
    expect(wrong.run).toThrow(/ERX_HI_CERT \(.*other\.p12\) cannot be used/);
    try {
      wrong.run();
    } catch (error) {
      expect((error as Error).message).not.toContain('not-the-passphrase');
    }
  });

  it('hands the adapter the PEM bundle of ERX_HI_CA', () => {
    const nash = writeNash('with-ca', 200);
    const { run, handed } = start({ ...soapEnv(nash.path, nash.passphrase), ERX_HI_CA: caPath });
    run();
    expect(handed[0]!.trustedCaPem).toBe(ca.certPem);
  });

  it('exposes the days left as erx_hi_certificate_days_left, read at each scrape', async () => {
    const nash = writeNash('metric', 100);
    const metrics = createPrometheusMetrics();
    const clock = new ManualClock(NOW);
    start(soapEnv(nash.path, nash.passphrase), { metrics, clock }).run();
    const gauge = async () => (await metrics.scrape()).body.split('\n').find((line) => line.startsWith('erx_hi_certificate_days_left '));
    expect(await gauge()).toBe(`erx_hi_certificate_days_left ${daysLeftOf(nash.notAfter, NOW)}`);
    expect(daysLeftOf(nash.notAfter, NOW)).toBe(100);
    clock.advanceSeconds(10 * 86_400 + 1);
    expect(await gauge()).toBe('erx_hi_certificate_days_left 89');
  });
});

describe('ERX_HI_CERT_PASSPHRASE_FILE', () => {
  const start = (env: Record<string, string>) => {
    const { adapter, handed } = recordingAdapter();
    const { logger, lines } = capturedLogger();
    const run = () => createConfiguredHiService(loadConfig({ ...PRODUCTION, ...env }), { serving: true, logger, metrics: NO_METRICS, clock: new ManualClock(NOW), soapAdapter: adapter });
    return { run, handed, lines };
  };
  /** soapEnv with the passphrase in a file of `mode` instead of the environment. */
  function fileEnv(name: string, content: string, mode = 0o600) {
    const nash = writeNash(name, 200);
    const file = join(directory, `${name}.passphrase`);
    writeFileSync(file, content.replace('PASSPHRASE', nash.passphrase));
    chmodSync(file, mode);
    const { ERX_HI_CERT_PASSPHRASE: _inEnvironment, ...env } = soapEnv(nash.path, nash.passphrase);
    return { env: { ...env, ERX_HI_CERT_PASSPHRASE_FILE: file }, nash, file };
  }

  it('opens the certificate with the passphrase read from a 0600 file (its final line break dropped), quietly', () => {
    const { env, nash } = fileEnv('from-file', 'PASSPHRASE\n');
    const { run, handed, lines } = start(env);
    run();
    expect(handed[0]!.certificate.notAfter).toEqual(nash.notAfter);
    expect(lines).toEqual([]);
  });

  it('warns, without the passphrase, when other users can read the file', () => {
    const { env, nash } = fileEnv('readable', 'PASSPHRASE', 0o644);
    const { run, lines } = start(env);
    run();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, msg: 'ERX_HI_CERT_PASSPHRASE_FILE can be read by other users: chmod 600 it' });
    expect(lines[0]).not.toContain(nash.passphrase);
  });

  it('refuses both the passphrase and the file', () => {
    const { env, nash } = fileEnv('both', 'PASSPHRASE');
    expect(() => loadConfig({ ...PRODUCTION, ...env, ERX_HI_CERT_PASSPHRASE: nash.passphrase })).toThrow(/ERX_HI_CERT_PASSPHRASE and ERX_HI_CERT_PASSPHRASE_FILE are both set: set one/);
  });

  it('refuses a file it cannot read, or an empty one, before opening the certificate', () => {
    const { env } = fileEnv('gone', 'PASSPHRASE');
    const missing = start({ ...env, ERX_HI_CERT_PASSPHRASE_FILE: join(directory, 'no-such.passphrase') });
    expect(missing.run).toThrow(/ERX_HI_CERT_PASSPHRASE_FILE \(.*no-such\.passphrase\) cannot be read: ENOENT/);
    expect(missing.handed).toEqual([]);
    expect(start(fileEnv('empty', '\n').env).run).toThrow(/ERX_HI_CERT_PASSPHRASE_FILE \(.*empty\.passphrase\) is empty/);
  });

  it('refuses a file holding the wrong passphrase without printing it', () => {
    const { env } = fileEnv('wrong', 'not-the-passphrase\n');
    const wrong = start(env);
    expect(wrong.run).toThrow(/ERX_HI_CERT \(.*wrong\.p12\) cannot be used/);
    expect(() => wrong.run()).not.toThrow(/not-the-passphrase/);
  });
});
