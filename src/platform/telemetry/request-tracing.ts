// One server span per HTTP request, by hand in Fastify's hooks rather than by an instrumentation
// that patches modules at load: named by method and route template, with the semantic
// conventions' method, route and status, and nothing from the path's values, the query string,
// headers or body (ids, identifiers and secrets stay out of traces). The span is made the active
// one for the handler, so what the request's change writes (its webhook events) can name it.
// A traceparent sent by the caller is not followed: partners do not get to pick our trace ids.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_SCHEME } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span while it runs (traces on only). */
    traceSpan: Span | null;
  }
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);

export function installRequestTracing(app: FastifyInstance, tracer: Tracer): void {
  app.decorateRequest('traceSpan', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const span = startServerSpan(tracer, request);
    request.traceSpan = span;
    // The rest of the request (hooks, body, handler, the service's transaction) runs in the span's context.
    context.with(trace.setSpan(ROOT_CONTEXT, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    endServerSpan(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    endServerSpan(request, undefined);
    done();
  });
}

function startServerSpan(tracer: Tracer, request: FastifyRequest): Span {
  const method = KNOWN_METHODS.has(request.method) ? request.method : '_OTHER';
  const route = request.routeOptions.url;
  const span = tracer.startSpan(
    route ? `${method} ${route}` : method,
    { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_SCHEME]: request.protocol } },
    ROOT_CONTEXT,
  );
  if (route) span.setAttribute(ATTR_HTTP_ROUTE, route);
  return span;
}

/** Ends the request's span once: with its status, or as aborted by the client (no status). */
function endServerSpan(request: FastifyRequest, statusCode: number | undefined): void {
  const span = request.traceSpan;
  if (!span) return;
  request.traceSpan = null;
  if (statusCode === undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
  } else {
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
    // Server spans: only a 5xx is the server's error (a 4xx is the caller's).
    if (statusCode >= 500) {
      span.setAttribute(ATTR_ERROR_TYPE, String(statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}
