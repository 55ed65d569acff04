// The service's logger: pino, with credentials and patient identifiers redacted wherever
// they might appear. The HTTP edge writes one line per request through it (http/request-log.ts).
import pino, { type DestinationStream, type Logger } from 'pino';
import { loadedPg } from './db/pg-module.ts';

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

/** Errors the database raised: PostgreSQL's (through pg) and SQLite's (through better-sqlite3). */
function isDatabaseError(error: object): error is Error & { code?: unknown } {
  const pg = loadedPg();
  return (pg !== undefined && error instanceof pg.DatabaseError) || (error instanceof Error && error.name === 'SqliteError');
}

/** Quoted text in a database message may be a value (`invalid input syntax for type uuid: "…"`). */
const withoutQuotedValues = (text: string) => text.replace(/"[^"]*"/g, '"…"');

/**
 * A database error as a log line may show it: what failed and where (code, constraint, table,
 * column), never what was written. PostgreSQL's `detail` quotes the key values of a unique
 * violation (an HPI-I, an e-mail), and other fields can quote the statement or its values, so
 * only the named fields are kept, and the message (and the stack's copy of it) lose quoted text.
 */
export function serializeError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null || !isDatabaseError(error)) return pino.stdSerializers.err(error as Error);
  const message = withoutQuotedValues(error.message);
  const { constraint, table, column } = error as { constraint?: string; table?: string; column?: string };
  const stack = error.stack ? [`${error.name}: ${message}`, ...error.stack.split('\n').filter((line) => line.startsWith('    at '))].join('\n') : undefined;
  return { type: error.name, code: error.code, message, constraint, table, column, stack };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } }, destination);
}
