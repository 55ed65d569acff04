// Builds every response body: the spec's success and error envelopes, and their schemas.
// No route writes an envelope by hand.
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { envelopeCodeOf, ERROR_CODES, type ApiError, type ValidationIssue } from './api-error.ts';

export const API_VERSION = '1.0';

export interface SuccessEnvelope<T> {
  success: true;
  statusCode: number;
  message: string;
  code: string;
  data: T;
  timestamp: string;
  requestId: string;
}

export interface ErrorEnvelope {
  success: false;
  statusCode: number;
  code?: string;
  error: { type: string; title: string; detail: string; instance?: string; validation?: ValidationIssue[] };
  timestamp: string;
  requestId: string;
  meta: { apiVersion: string };
}

let lastTimestamp = { ms: Number.NaN, iso: '' };

/** The ISO form of `now`; formatted once per millisecond, however many responses share it. */
function isoTimestamp(now: Date): string {
  const ms = now.getTime();
  if (lastTimestamp.ms !== ms) lastTimestamp = { ms, iso: now.toISOString() };
  return lastTimestamp.iso;
}

export function buildSuccessEnvelope<T>(args: {
  statusCode: number;
  message: string;
  data: T;
  requestId: string;
  now: Date;
  code?: string;
}): SuccessEnvelope<T> {
  return {
    success: true,
    statusCode: args.statusCode,
    message: args.message,
    code: args.code ?? 'SUCCESS',
    data: args.data,
    timestamp: isoTimestamp(args.now),
    requestId: args.requestId,
  };
}

export function buildErrorEnvelope(args: {
  error: ApiError;
  errorsBase: string;
  requestId: string;
  now: Date;
  instance?: string;
}): ErrorEnvelope {
  const { error } = args;
  const entry = ERROR_CODES[error.code];
  return {
    success: false,
    statusCode: entry.status,
    code: envelopeCodeOf(error.code),
    error: {
      type: `${args.errorsBase}/${entry.slug}`,
      title: entry.title,
      detail: error.detail,
      ...(args.instance ? { instance: args.instance } : {}),
      ...(error.validation ? { validation: error.validation } : {}),
    },
    timestamp: isoTimestamp(args.now),
    requestId: args.requestId,
    meta: { apiVersion: API_VERSION },
  };
}

/** Response schema of a success envelope around `data`. */
export function SuccessEnvelopeSchema<T extends TSchema>(data: T, description?: string) {
  return Type.Object(
    {
      success: Type.Literal(true),
      statusCode: Type.Integer(),
      message: Type.String(),
      code: Type.String(),
      data,
      timestamp: Type.String({ format: 'date-time' }),
      requestId: Type.String(),
    },
    description ? { description } : {},
  );
}

/** Response schema of a success envelope with more fields beside `data` (a list's `pagination`, the token's OAuth fields). */
export function SuccessEnvelopeWithSchema<T extends TSchema, B extends TProperties>(data: T, beside: B) {
  return Type.Composite([SuccessEnvelopeSchema(data), Type.Object(beside)]);
}

export const ValidationIssueSchema = Type.Object({
  field: Type.String(),
  message: Type.String(),
  code: Type.String(),
});

export const ErrorEnvelopeSchema = Type.Object(
  {
    success: Type.Literal(false),
    statusCode: Type.Integer(),
    code: Type.Optional(Type.String()),
    error: Type.Object({
      type: Type.String(),
      title: Type.String(),
      detail: Type.String(),
      instance: Type.Optional(Type.String()),
      validation: Type.Optional(Type.Array(ValidationIssueSchema)),
    }),
    timestamp: Type.String({ format: 'date-time' }),
    requestId: Type.String(),
    meta: Type.Object({ apiVersion: Type.String() }),
  },
  { description: 'Error envelope' },
);

/** The error responses every authenticated route can produce, for its response schema. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorEnvelopeSchema> {
  const all = [400, 401, 413, 415, 429, 500, ...statuses];
  return Object.fromEntries(all.map((status) => [status, ErrorEnvelopeSchema]));
}
