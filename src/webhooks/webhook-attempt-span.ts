// A client span per delivery attempt (traces on): the endpoint's host (never its path or query,
// which may carry a partner's token), the answer's status, the attempt number, and the event's
// type and id. Each attempt starts a trace of its own, LINKED to the span of the request whose
// change committed the event (its stored traceparent): the attempt is caused by that request but
// runs later, perhaps in another process, and retries would otherwise stretch its trace for minutes.
import { SpanKind, SpanStatusCode, type Link, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import { spanContextOfTraceparent } from '../platform/telemetry/trace-context.ts';
import type { AttemptResult } from './webhook-http-attempt.ts';

export const WEBHOOK_SPAN_NAME = 'webhook attempt';

export const WEBHOOK_SPAN_ATTRIBUTES = {
  attempt: 'erx.webhook.attempt',
  eventType: 'erx.webhook.event_type',
  eventId: 'erx.webhook.event_id',
  outcome: 'erx.webhook.outcome',
} as const;

export interface AttemptOfEvent {
  eventId: string;
  eventType: string;
  /** 1 to 3. */
  attempt: number;
  /** Of the request that committed the event; null when traces were off then. */
  traceparent: string | null;
}

export async function traceWebhookAttempt(tracer: Tracer, url: string, of: AttemptOfEvent, send: () => Promise<AttemptResult>): Promise<AttemptResult> {
  const committedBy = spanContextOfTraceparent(of.traceparent);
  const links: Link[] = committedBy ? [{ context: committedBy }] : [];
  const span = tracer.startSpan(WEBHOOK_SPAN_NAME, { kind: SpanKind.CLIENT, links, root: true, attributes: targetAttributes(url) });
  span.setAttribute(ATTR_HTTP_REQUEST_METHOD, 'POST');
  span.setAttribute(WEBHOOK_SPAN_ATTRIBUTES.attempt, of.attempt);
  if (of.attempt > 1) span.setAttribute(ATTR_HTTP_REQUEST_RESEND_COUNT, of.attempt - 1);
  span.setAttribute(WEBHOOK_SPAN_ATTRIBUTES.eventType, of.eventType);
  span.setAttribute(WEBHOOK_SPAN_ATTRIBUTES.eventId, of.eventId);
  try {
    const result = await send();
    span.setAttribute(WEBHOOK_SPAN_ATTRIBUTES.outcome, result.outcome);
    if (result.statusCode !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.statusCode);
    if (result.outcome !== 'success') {
      span.setAttribute(ATTR_ERROR_TYPE, result.statusCode !== null ? String(result.statusCode) : result.outcome);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } finally {
    span.end();
  }
}

function targetAttributes(url: string): Record<string, string | number> {
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { [ATTR_SERVER_ADDRESS]: parsed.hostname, [ATTR_SERVER_PORT]: port };
  } catch {
    return {};
  }
}
