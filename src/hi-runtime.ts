// Which HI Service erx asks, from configuration: the sandbox simulator, or the national HI
// Service through the SOAP adapter (ERX_HI). A server refuses to start when the choice cannot
// work: the simulator in production, the SOAP adapter without each of its settings (all named
// in one message), a NASH certificate (or ERX_HI_CERT_PASSPHRASE_FILE) that cannot be read, or has expired. A certificate that
// expires within 30 days is warned about once at start, and its days left are a metric.
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError, type Config, type HiSoapConfig } from './config.ts';
import { createHiSandboxSimulator, loadHiSandboxFixtures, type HiServicePort, type NashCertificate, type SoapHiSettings } from './hi-service/index.ts';
import type { Clock } from './platform/clock.ts';
import type { Metrics } from './platform/metrics/metrics.ts';

/** The SOAP adapter's face (src/hi-service/soap/index.ts); runtime.ts passes the real one, tests may read certificates their own way. */
export interface SoapAdapter {
  loadNashCertificate(pfx: Buffer, passphrase: string): NashCertificate;
  createSoapHiService(settings: SoapHiSettings): HiServicePort;
}

/**
 * Each setting the SOAP adapter cannot do without, with the variables that set it. In
 * production the answers' trust is not left to defaults: the system store would trust any
 * public CA's certificate to sign an HI answer, so ERX_HI_CA and the signer's pin are required.
 */
const REQUIRED_SOAP_SETTINGS: ReadonlyArray<{ env: string; isSet: (soap: HiSoapConfig) => boolean; productionOnly?: true }> = [
  { env: 'ERX_HI_ENDPOINT', isSet: (soap) => soap.endpoint !== undefined },
  { env: 'ERX_HI_CERT', isSet: (soap) => soap.certPath !== undefined },
  { env: 'ERX_HI_CERT_PASSPHRASE (or ERX_HI_CERT_PASSPHRASE_FILE)', isSet: (soap) => soap.certPassphrase !== undefined || soap.certPassphraseFile !== undefined },
  { env: 'ERX_HI_CA', isSet: (soap) => soap.caPath !== undefined, productionOnly: true },
  { env: 'ERX_HI_SIGNER_SPKI', isSet: (soap) => soap.signerSpkiPins.length > 0, productionOnly: true },
  { env: 'ERX_HI_VENDOR_QUALIFIER', isSet: (soap) => soap.vendorQualifier !== undefined },
  { env: 'ERX_HI_VENDOR_ID', isSet: (soap) => soap.vendorId !== undefined },
  { env: 'ERX_HI_PRODUCT_NAME', isSet: (soap) => soap.productName !== undefined },
  { env: 'ERX_HI_PRODUCT_VERSION', isSet: (soap) => soap.productVersion !== undefined },
];

/** A certificate expiring within this many days is warned about at start. */
export const CERTIFICATE_WARNING_DAYS = 30;

const DAY_MS = 86_400_000;

/** Whole days from `now` to `notAfter`, rounded down (negative once expired). */
export function daysLeftOf(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
}

/** The variables of each SOAP setting that is not set, in the order of docs/operators/hi-service.md. */
export function missingSoapSettings(soap: HiSoapConfig, mode: Config['mode']): string[] {
  return REQUIRED_SOAP_SETTINGS.filter((setting) => (mode === 'production' || !setting.productionOnly) && !setting.isSet(soap)).map((setting) => setting.env);
}

/** Throws the one refusal that names every problem of the configured choice, or returns. */
export function checkHiChoice(config: Config): void {
  if (config.hiAdapter === 'simulator' && config.mode === 'production') {
    throw new ConfigError('ERX_HI=simulator is refused in production mode: the sandbox simulator is not a production HI Service; use ERX_HI=soap with its settings');
  }
  if (config.hiAdapter !== 'soap') return;
  const missing = missingSoapSettings(config.hiSoap, config.mode);
  if (missing.length > 0) {
    throw new ConfigError(`ERX_HI=soap needs settings that are not set: ${missing.join(', ')} (see docs/operators/hi-service.md)`);
  }
}

function readSettingFile(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`${variable} (${path}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/** Refuses an expired certificate; warns once, without secrets, about one that expires soon. */
export function checkCertificateExpiry(certificate: Pick<NashCertificate, 'notAfter' | 'subject'>, now: Date, logger: Logger): void {
  const daysLeft = daysLeftOf(certificate.notAfter, now);
  const expiresAt = certificate.notAfter.toISOString();
  if (certificate.notAfter.getTime() <= now.getTime()) {
    throw new ConfigError(`the NASH certificate of ERX_HI_CERT expired at ${expiresAt}: the HI Service refuses it; install a renewed certificate`);
  }
  if (daysLeft < CERTIFICATE_WARNING_DAYS) {
    logger.warn({ hiCertificateExpiresAt: expiresAt, hiCertificateDaysLeft: daysLeft }, `the NASH certificate of ERX_HI_CERT expires in ${daysLeft} days; renew it before then`);
  }
}

export interface HiChoiceOptions {
  /** A server (or `erx hi check`): the choice must work. Other commands get a port that refuses when asked. */
  serving?: boolean;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  soapAdapter: SoapAdapter;
}

/** A group- or world-readable file hands the passphrase to other local users: warned about, not refused (a secret mount may be 0440). */
const PRIVATE_FILE_MODE_MASK = 0o077;

/** The passphrase from ERX_HI_CERT_PASSPHRASE, or read from ERX_HI_CERT_PASSPHRASE_FILE (one final line break dropped). */
function readCertPassphrase(soap: HiSoapConfig, logger: Logger): string {
  if (soap.certPassphraseFile === undefined) return soap.certPassphrase!;
  const path = soap.certPassphraseFile;
  const passphrase = readSettingFile(path, 'ERX_HI_CERT_PASSPHRASE_FILE').toString('utf8').replace(/\r?\n$/, '');
  if (passphrase === '') throw new ConfigError(`ERX_HI_CERT_PASSPHRASE_FILE (${path}) is empty`);
  if ((statSync(path).mode & PRIVATE_FILE_MODE_MASK) !== 0) {
    logger.warn({ path }, 'ERX_HI_CERT_PASSPHRASE_FILE can be read by other users: chmod 600 it');
  }
  return passphrase;
}

function loadSoapSettings(config: Config, options: HiChoiceOptions): SoapHiSettings {
  const soap = config.hiSoap;
  const pfx = readSettingFile(soap.certPath!, 'ERX_HI_CERT');
  const passphrase = readCertPassphrase(soap, options.logger);
  let certificate: NashCertificate;
  try {
    certificate = options.soapAdapter.loadNashCertificate(pfx, passphrase);
  } catch (error) {
    throw new ConfigError(`ERX_HI_CERT (${soap.certPath}) cannot be used: ${(error as Error).message}`);
  }
  checkCertificateExpiry(certificate, options.clock.now(), options.logger);
  options.metrics.watchHiCertificateDaysLeft(() => daysLeftOf(certificate.notAfter, options.clock.now()));
  return {
    endpoint: soap.endpoint!,
    certificate,
    ...(soap.caPath === undefined ? {} : { trustedCaPem: readSettingFile(soap.caPath, 'ERX_HI_CA').toString('utf8') }),
    signerSpkiPins: soap.signerSpkiPins,
    product: { vendorQualifier: soap.vendorQualifier!, vendorId: soap.vendorId!, productName: soap.productName!, productVersion: soap.productVersion! },
    timeoutMs: config.hiTimeoutMs,
    signatureAlgorithm: soap.signatureAlgorithm,
    digestAlgorithm: soap.digestAlgorithm,
    now: () => options.clock.now(),
  };
}

/** A port for a command that never asks the HI Service: it refuses only if asked. */
function refusingPort(error: ConfigError): HiServicePort {
  const refuse = async (): Promise<never> => {
    throw error;
  };
  return { searchIhi: refuse, verifyProvider: refuse };
}

/** The configured HI Service (before metrics and tracing wrap it). */
export function createConfiguredHiService(config: Config, options: HiChoiceOptions): HiServicePort {
  try {
    checkHiChoice(config);
  } catch (error) {
    if (options.serving || !(error instanceof ConfigError)) throw error;
    return refusingPort(error);
  }
  if (config.hiAdapter === 'simulator') {
    return createHiSandboxSimulator({ fixtures: loadHiSandboxFixtures(config.hiFixtures), latencyMs: config.hiLatencyMs, timeoutMs: config.hiTimeoutMs });
  }
  if (!options.serving) return refusingPort(new ConfigError('this command does not ask the HI Service'));
  return options.soapAdapter.createSoapHiService(loadSoapSettings(config, options));
}
