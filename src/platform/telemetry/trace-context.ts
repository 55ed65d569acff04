// The W3C `traceparent` of the span active now, and back: how a webhook event remembers the
// request that committed it, so that each delivery attempt (later, in another trace, perhaps in
// another process) can link to that request's span.
import { isSpanContextValid, trace, TraceFlags, type SpanContext } from '@opentelemetry/api';

/** `00-<trace id>-<span id>-<flags>` of the active span; undefined when none (or traces are off). */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The remote span context a stored traceparent names; undefined for null or anything malformed. */
export function spanContextOfTraceparent(traceparent: string | null | undefined): SpanContext | undefined {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return undefined;
  const context: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}
