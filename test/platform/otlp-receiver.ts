// A real OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1 that accepts
// `POST /v1/traces` in the JSON encoding (what @opentelemetry/exporter-trace-otlp-http sends),
// gzip or not, and keeps every span with its resource's attributes, flattened for assertions.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { listenOnLoopback } from '../webhooks/webhook-receivers.ts';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
}

export const SPAN_KIND = { server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request that arrived, whatever its path. */
  requests: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: Array<{ method: string; url: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url! });
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      spans.push(...flattenSpans(JSON.parse(body.toString('utf8'))));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function flattenSpans(request: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link: any) => ({ traceId: link.traceId, spanId: link.spanId })),
          statusCode: span.status?.code ?? 0,
          resource,
        });
      }
    }
  }
  return out;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}
