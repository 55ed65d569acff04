// The Metrics of metrics.ts kept in a prom-client registry, and the registry's text for a scrape.
// Names and units follow OpenTelemetry's semantic conventions where one exists (HTTP server
// duration in seconds, labels http_request_method, http_route, http_response_status_code); the
// service's own metrics start with erx_. Every label takes values from a closed set or one per
// endpoint, so no request can add a series: unknown methods count as _OTHER, requests that
// match no route as the one route label UNMATCHED_ROUTE.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics, PoolCounts, Unwatch, WebhookBacklog, WebhookWindowReading } from './metrics.ts';
import { LabelledHistogram, type HistogramSeries } from './request-histogram.ts';

/** The http_route of a request that matched no route (404s of random paths). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The methods OpenTelemetry names; any other is `_OTHER`. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** Seconds. The API answers most requests in 1-10 ms; the top buckets catch the slow tail. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds. A national service over SOAP: tens to hundreds of ms, up to its timeout. */
const HI_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds. A receiver's answer, cut off by the attempt timeout (10 s). */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds. Commit to first answer: milliseconds normally, minutes while a receiver is down or a backlog drains. */
const FIRST_ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** Runs `read` once however many gauges ask for it during one scrape (prom-client collects them concurrently). */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= read().finally(() => (pending = undefined)));
}

export function createPrometheusMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpDuration = new LabelledHistogram(
    'http_server_request_duration_seconds',
    'Duration of HTTP server requests, from the request arriving to the response sent.',
    ['http_request_method', 'http_route', 'http_response_status_code'],
    HTTP_BUCKETS,
  );
  // Route, then status, then method: a request costs three lookups of values it already holds.
  const httpSeries = new Map<string | undefined, Map<number, Map<string, HistogramSeries>>>();
  const httpSeriesOf = (method: string, route: string | undefined, statusCode: number): HistogramSeries => {
    let byStatus = httpSeries.get(route);
    if (!byStatus) httpSeries.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(statusCode);
    if (!byMethod) byStatus.set(statusCode, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) {
      series = httpDuration.series([KNOWN_METHODS.has(method) ? method : '_OTHER', route ?? UNMATCHED_ROUTE, String(statusCode)]);
      byMethod.set(method, series);
    }
    return series;
  };

  const rateLimitRefusals = new Counter({ name: 'erx_rate_limit_refusals_total', help: 'Requests refused with 429, by the limit that refused them.', labelNames: ['kind'], registers });
  const hiDuration = new Histogram({
    name: 'erx_hi_service_call_duration_seconds',
    help: 'Duration of HI Service calls, by operation and search path.',
    labelNames: ['operation', 'search_path'],
    buckets: HI_BUCKETS,
    registers,
  });
  const hiCalls = new Counter({ name: 'erx_hi_service_calls_total', help: 'HI Service calls, by operation, search path and outcome.', labelNames: ['operation', 'search_path', 'outcome'], registers });
  const webhookAttempts = new Counter({ name: 'erx_webhook_attempts_total', help: 'Webhook delivery attempts, by outcome class.', labelNames: ['outcome'], registers });
  const attemptDuration = new Histogram({ name: 'erx_webhook_attempt_duration_seconds', help: 'Duration of webhook delivery attempts.', buckets: ATTEMPT_BUCKETS, registers });
  const tokenSends = new Counter({ name: 'erx_token_message_sends_total', help: 'Attempts to send a prescription token, by channel and outcome class.', labelNames: ['channel', 'outcome'], registers });
  const mfaVerifications = new Counter({ name: 'erx_mfa_verifications_total', help: 'MFA verifications in the portal, by method (passkey, totp, recovery_code) and outcome (success, refused, locked).', labelNames: ['method', 'outcome'], registers });
  const rtpmChecks = new Counter({ name: 'erx_rtpm_checks_total', help: 'Real-time prescription monitoring checks, by outcome (checked, unavailable) and level (green, amber, red, none).', labelNames: ['outcome', 'level'], registers });
  const deliveriesEnded = new Counter({ name: 'erx_webhook_deliveries_ended_total', help: 'Webhook deliveries that ended: delivered, or failed after their last attempt.', labelNames: ['status'], registers });
  const firstAttemptLatency = new Histogram({
    name: 'erx_webhook_first_attempt_latency_seconds',
    help: "Time from an event's commit to the answer to its first delivery attempt.",
    buckets: FIRST_ATTEMPT_BUCKETS,
    registers,
  });
  const auditEntries = new Counter({ name: 'erx_audit_entries_written_total', help: 'Audit trail entries written.', registers });

  const windows = new Set<() => Iterable<WebhookWindowReading>>();
  const inFlight = new Gauge({ name: 'erx_webhook_endpoint_in_flight', help: "Webhook deliveries in flight to each partner's endpoint from this process.", labelNames: ['partner_id'], registers });
  const windowSize = new Gauge({
    name: 'erx_webhook_endpoint_window_size',
    help: "How many deliveries this process may have in flight to each partner's endpoint (halved by a 429).",
    labelNames: ['partner_id'],
    registers,
    collect() {
      inFlight.reset();
      windowSize.reset();
      for (const read of windows) {
        for (const reading of read()) {
          inFlight.inc({ partner_id: reading.partnerId }, reading.inFlight);
          windowSize.inc({ partner_id: reading.partnerId }, reading.size);
        }
      }
    },
  });

  let readBacklog: (() => Promise<WebhookBacklog>) | undefined;
  const collectBacklog = async () => {
    pending.reset();
    oldestAge.reset();
    if (!readBacklog) return;
    // A failed read (database down) shows as NaN rather than failing the whole scrape.
    const backlog = await readBacklog().catch(() => ({ pending: Number.NaN, oldestPendingAgeSeconds: Number.NaN }));
    pending.set(backlog.pending);
    oldestAge.set(backlog.oldestPendingAgeSeconds);
  };
  const pending: Gauge = new Gauge({ name: 'erx_webhook_deliveries_pending', help: 'Webhook deliveries waiting for an attempt (new or to retry).', registers, collect: collectBacklog });
  const oldestAge: Gauge = new Gauge({ name: 'erx_webhook_oldest_pending_delivery_age_seconds', help: 'Age of the oldest pending webhook delivery, in seconds.', registers, collect: collectBacklog });

  // Registered with the first pool watched: on SQLite (no pool) these series do not exist.
  let readPool: (() => PoolCounts) | undefined;
  let poolGauges: Gauge[] | undefined;
  const poolGauge = (name: string, help: string, field: keyof PoolCounts): Gauge =>
    new Gauge({
      name,
      help,
      registers,
      collect(this: Gauge) {
        this.set(readPool ? readPool()[field] : Number.NaN);
      },
    });
  const registerPoolGauges = () => [
    poolGauge('erx_database_pool_clients', 'Clients in the PostgreSQL connection pool.', 'total'),
    poolGauge('erx_database_pool_idle_clients', 'Idle clients in the PostgreSQL connection pool.', 'idle'),
    poolGauge('erx_database_pool_waiting_requests', 'Queries waiting for a client of the PostgreSQL connection pool.', 'waiting'),
  ];

  // Registered with the first certificate watched: without the SOAP adapter the series does not exist.
  let readCertificateDaysLeft: (() => number) | undefined;
  let certificateGauge: Gauge | undefined;
  const registerCertificateGauge = () =>
    new Gauge({
      name: 'erx_hi_certificate_days_left',
      help: 'Days until the NASH certificate erx presents to the HI Service expires (negative once expired).',
      registers,
      collect(this: Gauge) {
        this.set(readCertificateDaysLeft ? readCertificateDaysLeft() : Number.NaN);
      },
    });

  const watch = <T>(set: Set<T>, item: T): Unwatch => {
    set.add(item);
    return () => set.delete(item);
  };

  return {
    enabled: true,
    recordHttpRequest(method, route, statusCode, seconds) {
      httpSeriesOf(method, route, statusCode).observe(seconds);
    },
    recordRateLimitRefusal: (kind) => rateLimitRefusals.inc({ kind }),
    recordHiServiceCall(operation, searchPath, outcome, seconds) {
      const search_path = searchPath ?? 'none';
      hiDuration.observe({ operation, search_path }, seconds);
      hiCalls.inc({ operation, search_path, outcome });
    },
    recordWebhookAttempt(outcome, seconds) {
      webhookAttempts.inc({ outcome });
      attemptDuration.observe(seconds);
    },
    recordWebhookDeliveryEnded: (status) => deliveriesEnded.inc({ status }),
    recordTokenMessageSend: (channel, outcome) => tokenSends.inc({ channel, outcome }),
    recordMfaVerification: (method, outcome) => mfaVerifications.inc({ method, outcome }),
    recordRtpmCheck: (outcome, level) => rtpmChecks.inc({ outcome, level }),
    recordWebhookFirstAttemptLatency: (seconds) => firstAttemptLatency.observe(Math.max(0, seconds)),
    recordAuditEntriesWritten: (count) => auditEntries.inc(count),
    watchWebhookWindows: (read) => watch(windows, read),
    watchWebhookBacklog(read) {
      const shared = sharedRead(read);
      readBacklog = shared;
      return () => {
        if (readBacklog === shared) readBacklog = undefined;
      };
    },
    watchDatabasePool(read) {
      poolGauges ??= registerPoolGauges();
      readPool = read;
      return () => {
        if (readPool === read) readPool = undefined;
      };
    },
    watchHiCertificateDaysLeft(read) {
      certificateGauge ??= registerCertificateGauge();
      readCertificateDaysLeft = read;
      return () => {
        if (readCertificateDaysLeft === read) readCertificateDaysLeft = undefined;
      };
    },
    async scrape() {
      return { contentType: registry.contentType, body: (await registry.metrics()) + httpDuration.render() };
    },
  };
}
