// The metrics listener of a serving process (ERX_METRICS_PORT), scraped over a socket as
// Prometheus would, after real requests to the API's own socket: the HTTP histogram under route
// templates (and one series for whatever matches no route), the HI Service decorator, a real
// webhook delivery to a local receiver, the database pool, and that /metrics is never on the
// public port. Runs on SQLite, or on PostgreSQL with DATABASE_URL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Features } from '../../src/features.ts';
import type { Deps } from '../../src/deps.ts';
import type { SandboxSeed } from '../../src/onboarding/sandbox-seed.ts';
import type { RunningServer } from '../../src/server.ts';
import { setWebhookEndpoint, startWebhookDispatcher } from '../../src/webhooks/index.ts';
import { JESSICA_WOOD } from '../../bench/bench-endpoints.ts';
import { TEST_DATABASE_URL } from '../test-app.ts';
import { lastAuditSeq } from '../audit/audit-helpers.ts';
import { startReceiver, type Receiver } from '../webhooks/webhook-receivers.ts';
import { eventually, prescriptionEvent, recordEvents } from '../webhooks/webhooks-given.ts';
import { requestToken, scrapeMetrics, startMeasuredServer, type MeasuredServer } from './metrics-scrape.ts';

const VALIDATE_ROUTE = '/v1/organizations/:organization_id/validate';
const HTTP_COUNT = 'http_server_request_duration_seconds_count';

let measured: MeasuredServer;
let deps: Deps;
let features: Features;
let server: RunningServer;
let seed: SandboxSeed;
let token: string;
let receiver: Receiver;

function validate(): Promise<Response> {
  return fetch(`${server.url}/v1/organizations/${seed.organization_id}/validate`, {
    headers: { authorization: `Bearer ${token}`, 'x-organization-secret': seed.organization_secret },
  });
}

/** Runs `count` calls of `send`, `parallel` at a time. */
async function inParallel(count: number, parallel: number, send: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await send(next++);
    }),
  );
}

beforeAll(async () => {
  measured = await startMeasuredServer({ ERX_WEBHOOK_TIMEOUT_MS: '2000' });
  ({ deps, features, server, seed } = measured);
  token = await requestToken(measured);
  receiver = await startReceiver();
});

afterAll(async () => {
  await measured?.close();
  await receiver?.close();
});

describe('the metrics listener (ERX_METRICS_PORT)', () => {
  it('answers GET /metrics on its own port, and the public port answers 404 there', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.metricsUrl).not.toBe(server.url);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${server.metricsUrl}/other`)).status).toBe(404);
    const scrape = await scrapeMetrics(server.metricsUrl!);
    // Node's default process metrics, and the audit counter the audit trail increments.
    expect(scrape.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(scrape.text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    // Every entry this process appended (the seed's, the token's) and no other.
    expect(scrape.value('erx_audit_entries_written_total')).toBe(await lastAuditSeq({ deps }));
    expect(scrape.value('erx_audit_entries_written_total')).toBeGreaterThan(0);
    await requestToken({ server, seed });
    expect((await scrapeMetrics(server.metricsUrl!)).value('erx_audit_entries_written_total')).toBe(await lastAuditSeq({ deps }));
  });

  it('counts every request under its route template, method and status', async () => {
    const labels = { http_request_method: 'GET', http_route: VALIDATE_ROUTE, http_response_status_code: '200' };
    const before = (await scrapeMetrics(server.metricsUrl!)).value(HTTP_COUNT, labels) ?? 0;
    for (let i = 0; i < 7; i++) expect((await validate()).status).toBe(200);
    const after = await scrapeMetrics(server.metricsUrl!);
    expect(after.value(HTTP_COUNT, labels)).toBe(before + 7);
    expect(after.value('http_server_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(before + 7);
    expect(after.value('http_server_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    // The organization id never becomes a label: only the template does.
    expect(after.text).not.toContain(seed.organization_id);
  });

  it('puts 10,000 requests to random URLs in the series that were there before', async () => {
    const randomPath = (i: number) =>
      i % 2 === 0 ? `/${randomUUID()}/${i}?q=${randomUUID()}` : `/v1/organizations/${randomUUID()}/validate?x=${i}`;
    // One of each kind first, so that the series they belong to exist before counting.
    for (const i of [0, 1]) await (await fetch(`${server.url}${randomPath(i)}`)).arrayBuffer();
    const before = await scrapeMetrics(server.metricsUrl!);
    const unmatched = { http_request_method: 'GET', http_route: 'unmatched', http_response_status_code: '404' };
    const unmatchedBefore = before.value(HTTP_COUNT, unmatched)!;
    const statuses = new Map<number, number>();
    await inParallel(10_000, 16, async (i) => {
      const response = await fetch(`${server.url}${randomPath(i)}`);
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    });
    expect(Object.fromEntries(statuses)).toEqual({ 404: 5_000, 401: 5_000 });
    const after = await scrapeMetrics(server.metricsUrl!);
    expect(after.seriesCount(HTTP_COUNT)).toBe(before.seriesCount(HTTP_COUNT));
    expect(after.seriesCount('http_server_request_duration_seconds_bucket')).toBe(before.seriesCount('http_server_request_duration_seconds_bucket'));
    expect(after.value(HTTP_COUNT, unmatched)).toBe(unmatchedBefore + 5_000);
    expect(after.text).not.toMatch(/http_route="\/[0-9a-f]{8}-/);
  }, 120_000);

  it('measures each HI Service call by operation, search path and outcome', async () => {
    const search = { operation: 'searchIhi', search_path: 'medicare' };
    const before = await scrapeMetrics(server.metricsUrl!);
    // The seed verified its prescriber with the HI Service: through the same decorator.
    expect(before.value('erx_hi_service_calls_total', { operation: 'verifyProvider', search_path: 'none', outcome: 'verified' })).toBeGreaterThanOrEqual(1);
    const foundBefore = before.value('erx_hi_service_calls_total', { ...search, outcome: 'found' }) ?? 0;
    const timedBefore = before.value('erx_hi_service_call_duration_seconds_count', search) ?? 0;
    const response = await fetch(`${server.url}/v1/organizations/${seed.organization_id}/users/${seed.prescriber.user_id}/patients/ihi-precheck`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-organization-secret': seed.organization_secret, 'content-type': 'application/json' },
      body: JSON.stringify({ ...JESSICA_WOOD, partner_id: seed.partner_id, partner_patient_id: `metrics-${randomUUID()}` }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { outcome: string } }).data.outcome).toBe('ihi_found');
    const after = await scrapeMetrics(server.metricsUrl!);
    expect(after.value('erx_hi_service_calls_total', { ...search, outcome: 'found' })).toBe(foundBefore + 1);
    expect(after.value('erx_hi_service_call_duration_seconds_count', search)).toBe(timedBefore + 1);
  });

  it('follows a webhook event from the backlog to its delivery at a real receiver', async () => {
    expect((await validate()).status).toBe(200); // webhooks wait for the organization's validation
    await setWebhookEndpoint(features.webhooks, seed.partner_id, receiver.url);
    const g = { partnerId: seed.partner_id, organizationId: seed.organization_id, userId: seed.prescriber.user_id };
    await recordEvents(features.webhooks, [prescriptionEvent(g)]);
    // No dispatcher yet: the delivery waits, and the backlog says so.
    const waiting = await scrapeMetrics(server.metricsUrl!);
    expect(waiting.value('erx_webhook_deliveries_pending')).toBe(1);
    expect(waiting.value('erx_webhook_oldest_pending_delivery_age_seconds')).toBeGreaterThanOrEqual(0);

    const dispatcher = startWebhookDispatcher(features.webhooks);
    try {
      await receiver.waitForRequests(1);
      const delivered = await eventually(
        () => scrapeMetrics(server.metricsUrl!),
        (scrape) => scrape.value('erx_webhook_deliveries_ended_total', { status: 'delivered' }) === 1,
      );
      expect(delivered.value('erx_webhook_attempts_total', { outcome: 'success' })).toBe(1);
      expect(delivered.value('erx_webhook_attempt_duration_seconds_count')).toBe(1);
      expect(delivered.value('erx_webhook_first_attempt_latency_seconds_count')).toBe(1);
      expect(delivered.value('erx_webhook_first_attempt_latency_seconds_sum')).toBeGreaterThan(0);
      expect(delivered.value('erx_webhook_deliveries_pending')).toBe(0);
      expect(delivered.value('erx_webhook_oldest_pending_delivery_age_seconds')).toBe(0);
      expect(delivered.value('erx_webhook_endpoint_window_size', { partner_id: seed.partner_id })).toBe(deps.config.webhookMaxInFlight);
      expect(delivered.value('erx_webhook_endpoint_in_flight', { partner_id: seed.partner_id })).toBe(0);
    } finally {
      await dispatcher.stop();
    }
    // A stopped dispatcher's windows are no longer reported.
    expect((await scrapeMetrics(server.metricsUrl!)).seriesCount('erx_webhook_endpoint_window_size')).toBe(0);
  });

  it('reports the PostgreSQL connection pool, and no pool on SQLite', async () => {
    const scrape = await scrapeMetrics(server.metricsUrl!);
    if (!TEST_DATABASE_URL) {
      expect(scrape.seriesCount('erx_database_pool_clients')).toBe(0);
      return;
    }
    const total = scrape.value('erx_database_pool_clients')!;
    expect(total).toBeGreaterThanOrEqual(1);
    expect(scrape.value('erx_database_pool_idle_clients')).toBeLessThanOrEqual(total);
    // The scrape's own backlog query may be waiting for a client at that moment.
    expect(scrape.value('erx_database_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
  });
});
