// Turns everything that goes wrong in a request into the spec's error envelope: ApiErrors
// thrown by services, schema failures (422 with every issue), Fastify's own errors (malformed
// JSON, body too large, unknown route) and, as a 500 without internals, any bug.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ERROR_CODES, validationFailed, type ErrorCode, type ValidationIssue } from './api-error.ts';
import type { Clock } from '../clock.ts';
import { buildErrorEnvelope } from './envelope.ts';

/** The most validation issues one response reports; bodies can be built to produce thousands. */
export const MAX_REPORTED_ISSUES = 100;

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/a/b/0/c` → `a.b[0].c` */
export function fieldFromPointer(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((field, part) => (/^\d+$/.test(part) ? `${field}[${part}]` : field ? `${field}.${part}` : part), '');
}

/** Ajv's errors as validation issues; the first `limit` of them (a response reports no more). */
export function issuesFromAjv(errors: readonly AjvIssue[], limit = MAX_REPORTED_ISSUES): ValidationIssue[] {
  return errors.slice(0, limit).map((error) => {
    const base = fieldFromPointer(error.instancePath);
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty);
      const field = base ? `${base}.${missing}` : missing;
      return { field, message: `${field} is required`, code: 'REQUIRED_FIELD' };
    }
    const message =
      error.keyword === 'enum'
        ? `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`
        : (error.message ?? 'is invalid');
    return { field: base || 'body', message, code: 'VALIDATION_ERROR' };
  });
}

const FASTIFY_CODE_TO_ERROR: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', detail: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Content-Type must be application/json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_REQUEST', detail: 'Request body is empty but Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_REQUEST', detail: 'Request body is not valid JSON' },
};

function toApiError(error: FastifyError): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error.validation) return validationFailed(issuesFromAjv(error.validation as AjvIssue[]));
  const known = FASTIFY_CODE_TO_ERROR[error.code];
  if (known) return new ApiError(known.code, known.detail);
  // JSON.parse failures surface as SyntaxError with status 400.
  if (error.statusCode === 400) return new ApiError('INVALID_REQUEST', 'Request body is not valid JSON');
  return undefined;
}

export function installErrorHandling(app: FastifyInstance, options: { clock: Clock; errorsBase: string }): void {
  const send = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => {
    if (error.headers) reply.headers(error.headers);
    const body = buildErrorEnvelope({ error, errorsBase: options.errorsBase, requestId: request.id, now: options.clock.now() });
    return reply.status(ERROR_CODES[error.code].status).send(body);
  };

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toApiError(error);
    if (known) return send(request, reply, known);
    request.log.error({ err: error }, 'unhandled error');
    return send(request, reply, new ApiError('INTERNAL_ERROR', `An unexpected error occurred; quote requestId ${request.id} to support`));
  });

  app.setNotFoundHandler((request, reply) =>
    send(request, reply, new ApiError('RESOURCE_NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`)),
  );
}
