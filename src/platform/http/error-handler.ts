// Turns everything that goes wrong in a request into the spec's error envelope: ApiErrors
// thrown by services, schema failures (422 with every issue), Fastify's own errors (malformed
// JSON, body too large, unknown route), what fails before a route is found (a malformed URL, a
// path parameter over the router's limit, a request line or headers over the HTTP parser's)
// and, as a 500 without internals, any bug.
import http from 'node:http';
import type { Duplex } from 'node:stream';
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
    // A schema closed with additionalProperties: false names the field it does not know.
    if (error.keyword === 'additionalProperties') {
      const extra = String(error.params.additionalProperty);
      return { field: base ? `${base}.${extra}` : extra, message: 'is not a known field', code: 'VALIDATION_ERROR' };
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

export interface ErrorRendering {
  clock: Clock;
  errorsBase: string;
}

function sendError(options: ErrorRendering, request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  if (error.headers) reply.headers(error.headers);
  const body = buildErrorEnvelope({ error, errorsBase: options.errorsBase, requestId: request.id, now: options.clock.now() });
  return reply.status(ERROR_CODES[error.code].status).send(body);
}

/** Errors Fastify raises while finding the route (its `frameworkErrors` option). */
const FRAMEWORK_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_BAD_URL: { code: 'INVALID_REQUEST', detail: 'The URL is malformed: a percent sign must start a valid escape such as %2F' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'URI_TOO_LONG', detail: 'A path parameter is longer than any identifier this API uses' },
};

/** The `frameworkErrors` option of Fastify: the envelope, with a request id, like every other error. */
export function createFrameworkErrorHandler(options: ErrorRendering) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = FRAMEWORK_ERRORS[error.code] ?? { code: 'INVALID_REQUEST' as const, detail: 'The request could not be routed' };
    // No hook runs for these, so the header every response carries is set here too.
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    return sendError(options, request, reply, new ApiError(known.code, known.detail));
  };
}

/** What the HTTP parser refuses (`clientError`): the status Node would send, as an envelope. */
const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', detail: 'The request line and headers are larger than the server accepts' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', detail: 'The request was not received in time' },
};

/**
 * Fastify's `clientErrorHandler`: the request never reached Fastify, so the answer is written
 * to the socket as it is, then the connection closes (the parser cannot continue on it).
 */
export function createClientErrorHandler(options: ErrorRendering & { newRequestId: () => string; log: (line: Record<string, unknown>) => void }) {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const known = (error.code && CLIENT_ERRORS[error.code]) || { code: 'INVALID_REQUEST' as const, detail: 'The request is not valid HTTP' };
    const requestId = options.newRequestId();
    const status = ERROR_CODES[known.code].status;
    const body = JSON.stringify(
      buildErrorEnvelope({ error: new ApiError(known.code, known.detail), errorsBase: options.errorsBase, requestId, now: options.clock.now() }),
    );
    options.log({ requestId, status, code: known.code, parserError: error.code });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

export function installErrorHandling(app: FastifyInstance, options: ErrorRendering): void {
  const send = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => sendError(options, request, reply, error);

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
