// A client span around every call of an HI Service port (the decorator runtime.ts puts around
// the adapter when traces are on): which operation, which search path, and how it came out.
// Demographics and identifiers never go into a span.
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { classifyHiFailure } from './hi-service-failure.ts';
import type { HiServicePort } from './hi-service-port.ts';

export const HI_SPAN_ATTRIBUTES = {
  operation: 'erx.hi.operation',
  searchPath: 'erx.hi.search_path',
  outcome: 'erx.hi.outcome',
} as const;

/** The port itself when `tracer` is undefined (traces off): no wrapper on the path at all. */
export function traceHiService(port: HiServicePort, tracer: Tracer | undefined): HiServicePort {
  if (!tracer) return port;
  return {
    searchIhi: (request, context) => traced(tracer, 'searchIhi', request.path, () => port.searchIhi(request, context)),
    verifyProvider: (request, context) => traced(tracer, 'verifyProvider', undefined, () => port.verifyProvider(request, context)),
  };
}

async function traced<T extends { kind: string }>(tracer: Tracer, operation: string, searchPath: string | undefined, call: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(`hi-service ${operation}`, { kind: SpanKind.CLIENT }, async (span) => {
    span.setAttribute(HI_SPAN_ATTRIBUTES.operation, operation);
    if (searchPath) span.setAttribute(HI_SPAN_ATTRIBUTES.searchPath, searchPath);
    try {
      const result = await call();
      span.setAttribute(HI_SPAN_ATTRIBUTES.outcome, result.kind);
      return result;
    } catch (error) {
      span.setAttribute(HI_SPAN_ATTRIBUTES.outcome, classifyHiFailure(error).outcome);
      span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
