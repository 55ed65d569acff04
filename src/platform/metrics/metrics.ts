// What the service measures about itself, as one interface the features record into. Built once
// per process (runtime.ts); `erx serve` exposes it in the Prometheus text format on a listener of
// its own (ERX_METRICS_PORT, metrics-listener.ts). Without that setting, and in tests that do not
// ask for it, the features get NO_METRICS, whose calls do nothing: recording costs nothing then.
// The Prometheus implementation (prometheus-metrics.ts) is the only file that knows prom-client.

/** Which limit refused a request (429). */
export type RateLimitKind = 'budget' | 'credential_failures' | 'portal';

/** The operations of the HI Service port (hi-service-port.ts). */
export type HiOperation = 'searchIhi' | 'verifyProvider';

/** How an HI Service call ended: its answer's kind, or `unreachable` / `error` when it threw. */
export type HiCallOutcome = 'found' | 'no_match' | 'verified' | 'no_status' | 'inactive' | 'rejected' | 'unreachable' | 'error';

/** One endpoint's window in one dispatcher (webhook-endpoint-window.ts). */
export interface WebhookWindowReading {
  partnerId: string;
  /** Deliveries in flight now. */
  inFlight: number;
  /** How many may be in flight now (halved by a 429, widened again by successes). */
  size: number;
}

/** The outbox's deliveries still to go, read from the database when metrics are scraped. */
export interface WebhookBacklog {
  pending: number;
  /** Seconds since the oldest pending delivery was created; 0 when none is pending. */
  oldestPendingAgeSeconds: number;
}

/** A connection pool's clients (pg.Pool's totalCount, idleCount, waitingCount). */
export interface PoolCounts {
  total: number;
  idle: number;
  waiting: number;
}

/** Stops a watch: the source is no longer read at scrapes. */
export type Unwatch = () => void;

export interface Metrics {
  /** False for NO_METRICS: a caller may skip installing a hook at all. */
  readonly enabled: boolean;
  /** One HTTP request answered; `route` is the matched route's template, undefined when none matched. */
  recordHttpRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void;
  recordRateLimitRefusal(kind: RateLimitKind): void;
  /** One call of the HI Service port; `searchPath` for searchIhi (verifyProvider has none). */
  recordHiServiceCall(operation: HiOperation, searchPath: string | undefined, outcome: HiCallOutcome, seconds: number): void;
  /** One webhook attempt answered (or failed below HTTP): its outcome class and how long it took. */
  recordWebhookAttempt(outcome: string, seconds: number): void;
  /** A delivery ended for good: delivered, or failed after its last attempt. */
  recordWebhookDeliveryEnded(status: 'delivered' | 'failed'): void;
  /** From an event's commit to the answer to its first attempt. */
  recordWebhookFirstAttemptLatency(seconds: number): void;
  /** One attempt to send a token message: its channel (SMS, EMAIL) and outcome class. */
  recordTokenMessageSend(channel: string, outcome: string): void;
  /** One MFA verification in the portal (erx_mfa_verifications_total): the method and success, refused or locked. */
  recordMfaVerification(method: string, outcome: 'success' | 'refused' | 'locked'): void;
  /** One real-time prescription monitoring check: its outcome (checked, unavailable) and level (green, amber, red; none when unavailable). */
  recordRtpmCheck(outcome: string, level: string): void;
  /**
   * Audit entries written (erx_audit_entries_written_total). The hook for the audit trail: its
   * sink calls this with the number of entries a transaction wrote, after it committed.
   */
  recordAuditEntriesWritten(count: number): void;
  /** A dispatcher's endpoint windows, read at each scrape (summed per endpoint across dispatchers). */
  watchWebhookWindows(read: () => Iterable<WebhookWindowReading>): Unwatch;
  /** The outbox backlog, asked of the webhooks feature at each scrape. */
  watchWebhookBacklog(read: () => Promise<WebhookBacklog>): Unwatch;
  /** The database's connection pool, read at each scrape (PostgreSQL). */
  watchDatabasePool(read: () => PoolCounts): Unwatch;
  /** Days until the HI Service (NASH) certificate expires, read at each scrape (erx_hi_certificate_days_left; ERX_HI=soap only). */
  watchHiCertificateDaysLeft(read: () => number): Unwatch;
  /** The text exposition of everything kept, and its content type, for GET /metrics. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

const nothing = () => {};

/** Metrics off: every call does nothing. */
export const NO_METRICS: Metrics = {
  enabled: false,
  recordHttpRequest: nothing,
  recordRateLimitRefusal: nothing,
  recordHiServiceCall: nothing,
  recordWebhookAttempt: nothing,
  recordWebhookDeliveryEnded: nothing,
  recordWebhookFirstAttemptLatency: nothing,
  recordTokenMessageSend: nothing,
  recordMfaVerification: nothing,
  recordRtpmCheck: nothing,
  recordAuditEntriesWritten: nothing,
  watchWebhookWindows: () => nothing,
  watchWebhookBacklog: () => nothing,
  watchDatabasePool: () => nothing,
  watchHiCertificateDaysLeft: () => nothing,
  scrape: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};
