// The service's logger: pino, with credentials and patient identifiers redacted wherever
// they might appear. The HTTP edge writes one line per request through it (http/request-log.ts).
import pino, { type DestinationStream, type Logger } from 'pino';

const SENSITIVE_KEYS = [
  'authorization',
  'x-organization-secret',
  'x-partner-secret',
  'secret',
  'password',
  'accessToken',
  'organization_secret',
  'partner_secret',
  'webhook_secret',
  'ihi_number',
  'medicare_card_number',
  'medicare_irn',
  'dva_file_number',
  'hpii_number',
  'date_of_birth',
  'phone',
  'email',
  'concession_pension_number',
  'entitlement_number',
  'australian_street_address',
  'australian_address',
  'international_address',
];

// Top level and one level down: deeper wildcards make pino's per-request child loggers
// markedly slower, and nothing here logs objects nested deeper than that.
export const REDACT_PATHS = SENSITIVE_KEYS.flatMap((key) => {
  const access = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `["${key}"]`;
  return [access.slice(access.startsWith('.') ? 1 : 0), `*${access}`];
});

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
