// Traces end to end, on the assembly `erx serve` runs (assembleDeps, startServer, the
// dispatcher): spans go to a real OTLP/HTTP receiver on 127.0.0.1. A request's server span,
// the HI calls of a precheck inside it, and each webhook delivery attempt in a trace of its own,
// linked to the span of the request that committed the event. The batch delay is made far longer
// than the test, so spans arrive only because stopping the server flushes them. Without an OTLP
// traces endpoint nothing is traced at all.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import type { Deps } from '../../src/deps.ts';
import { assembleDeps } from '../../src/runtime.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { setWebhookEndpoint, startWebhookDispatcher } from '../../src/webhooks/index.ts';
import { createCliEnvironment, spawnServer } from '../cli/cli-helpers.ts';
import { dropSchemas } from '../global-setup.ts';
import { patientBody } from '../patients/patients-given.ts';
import { givenClinic, helpersPath, prescribeBody, type Clinic } from '../prescriptions/prescriptions-given.ts';
import { newTestSchemaName, TEST_DATABASE_URL, type TestApp } from '../test-app.ts';
import { eventually } from '../webhooks/webhooks-given.ts';
import { startReceiver, type Receiver } from '../webhooks/webhook-receivers.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

const PRESCRIBE_ROUTE = '/v1/test-helpers/organizations/:organization_id/users/:user_id/patients/:patient_id/prescriptions';
const PRECHECK_ROUTE = '/v1/organizations/:organization_id/users/:user_id/patients/ihi-precheck';
const PARTNER_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

interface Served {
  deps: Deps;
  features: Features;
  server: RunningServer;
  /** The test helpers' view of the served app (setup goes through app.inject). */
  t: TestApp;
}

let dataDir: string;
let schema: string | undefined;
let otlp: OtlpReceiver;
let hooks: Receiver;
let served: Served | undefined;

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'erx-tracing-'));
  schema = TEST_DATABASE_URL ? newTestSchemaName('t') : undefined;
  otlp = await startOtlpReceiver();
  // The first attempt of each event fails (503), the retry (1 s later) succeeds.
  hooks = await startReceiver((request) => (hooks.requests.filter((r) => r.eventId === request.eventId).length === 1 ? { status: 503 } : { status: 200, body: 'ok' }));
  // Spans leave only when a batch is full (it never is here) or the provider shuts down.
  vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '600000');
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await served?.server.stop();
  served = undefined;
  await Promise.all([otlp.close(), hooks.close()]);
  if (TEST_DATABASE_URL && schema) await dropSchemas(TEST_DATABASE_URL, [schema]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** What `erx serve` starts: the assembled deps (traced), the server on a free port, its dispatcher. */
async function serve(env: Record<string, string>): Promise<Served> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ERX_RATE_LIMIT_MAX: '0',
    ERX_DATA_DIR: dataDir,
    ERX_WEBHOOK_TIMEOUT_MS: '2000',
    ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, ERX_DATABASE_SCHEMA: schema! } : {}),
    ...env,
  });
  const deps = await assembleDeps(config, { serving: true, traced: true });
  const features = buildFeatures(deps);
  const dispatcher = startWebhookDispatcher(features.webhooks);
  const server = await startServer(deps, features, undefined, { beforeClosingDeps: () => dispatcher.stop() });
  const t = { app: server.app, deps, features, schema } as unknown as TestApp;
  served = { deps, features, server, t };
  return served;
}

async function post(s: Served, url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${s.server.url}${url}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

/** A precheck and a prescription through the socket, the prescription's event delivered (503, then 200) to `hooks`. */
async function precheckAndPrescribe(s: Served): Promise<{ clinic: Clinic; scid: string; eventId: string }> {
  const clinic = await givenClinic(s.t);
  await setWebhookEndpoint(s.features.webhooks, clinic.g.partnerId, hooks.url);
  const wood = HI_DEMO_PATIENTS.activeVerified;
  // A caller's trace context is not followed (PARTNER_TRACEPARENT): the request starts a trace of its own.
  const precheck = await post(s, `/v1/organizations/${clinic.g.organizationId}/users/${clinic.g.userId}/patients/ihi-precheck`, { ...clinic.headers, traceparent: PARTNER_TRACEPARENT }, {
    ...patientBody(clinic.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn }),
  });
  expect(precheck.status).toBe(200);
  const refused = await post(s, `/v1/organizations/${clinic.g.organizationId}/users/${clinic.g.userId}/patients/ihi-precheck`, {}, {});
  expect(refused.status).toBe(401);
  const created = await post(s, helpersPath(clinic), clinic.headers, prescribeBody());
  expect(created.status).toBe(201);
  const [event] = await s.deps.database.selectFrom('webhook_events').select(['id']).where('organization_id', '=', clinic.g.organizationId).execute();
  await eventually(
    () => s.deps.database.selectFrom('webhook_deliveries').select(['status', 'attempts_made']).where('event_id', '=', event!.id).executeTakeFirstOrThrow(),
    (delivery) => delivery.status === 'delivered',
  );
  return { clinic, scid: created.json.data.scid, eventId: event!.id };
}

const only = (spans: ReceivedSpan[], what: string): ReceivedSpan => {
  expect(spans, what).toHaveLength(1);
  return spans[0]!;
};

describe('traces on (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it('exports a server span per request, the HI calls of a precheck inside it, and delivery attempts linked to the committing request', async () => {
    const s = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'erx-under-test' });
    expect(s.deps.tracing?.tracer).toBeDefined();
    const { clinic, scid, eventId } = await precheckAndPrescribe(s);
    expect(otlp.spans, 'nothing is exported before the flush').toHaveLength(0);
    const stored = await s.deps.database.selectFrom('webhook_events').select('traceparent').where('id', '=', eventId).executeTakeFirstOrThrow();

    await s.server.stop();

    const spans = otlp.spans;
    expect(otlp.requests.every((r) => r.method === 'POST' && r.url === '/v1/traces')).toBe(true);
    expect(new Set(spans.map((span) => span.resource['service.name']))).toEqual(new Set(['erx-under-test']));

    const prescribe = only(spans.filter((span) => span.attributes['http.route'] === PRESCRIBE_ROUTE), 'the prescribe request');
    expect(prescribe).toMatchObject({ name: `POST ${PRESCRIBE_ROUTE}`, kind: SPAN_KIND.server, parentSpanId: undefined });
    expect(prescribe.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': PRESCRIBE_ROUTE, 'http.response.status_code': 201 });
    expect(stored.traceparent).toBe(`00-${prescribe.traceId}-${prescribe.spanId}-01`);

    const prechecks = spans.filter((span) => span.attributes['http.route'] === PRECHECK_ROUTE && span.kind === SPAN_KIND.server);
    // The caller's mistake (401) is no error of the server's: its span's status stays unset.
    expect(only(prechecks.filter((span) => span.attributes['http.response.status_code'] === 401), 'the refused precheck').statusCode).toBe(0);
    const precheck = only(prechecks.filter((span) => span.attributes['http.response.status_code'] === 200), 'the precheck request');
    expect(precheck.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    expect(precheck.parentSpanId).toBeUndefined();
    expect(spans.filter((span) => span.traceId === '0af7651916cd43dd8448eb211c80319c')).toEqual([]);
    const hiCalls = spans.filter((span) => span.parentSpanId === precheck.spanId);
    expect(hiCalls.length).toBeGreaterThan(0);
    for (const hi of hiCalls) {
      expect(hi).toMatchObject({ name: 'hi-service searchIhi', kind: SPAN_KIND.client, traceId: precheck.traceId });
      expect(hi.attributes['erx.hi.operation']).toBe('searchIhi');
    }
    // Medicare is the first path a body with a Medicare number is searched on, and Jessica Wood is found there.
    expect(hiCalls[0]!.attributes).toMatchObject({ 'erx.hi.search_path': 'medicare', 'erx.hi.outcome': 'found' });

    // Making the prescriber ready verified their HPI-I: a call with no search path.
    const verifications = spans.filter((span) => span.name === 'hi-service verifyProvider');
    expect(verifications.map((span) => [span.attributes['erx.hi.operation'], span.attributes['erx.hi.outcome'], span.attributes['erx.hi.search_path']])).toEqual([['verifyProvider', 'verified', undefined]]);

    const attempts = spans.filter((span) => span.name === 'webhook attempt').sort((a, b) => Number(a.attributes['erx.webhook.attempt']) - Number(b.attributes['erx.webhook.attempt']));
    expect(attempts).toHaveLength(2);
    const port = Number(new URL(hooks.url).port);
    for (const [index, attempt] of attempts.entries()) {
      expect(attempt.kind).toBe(SPAN_KIND.client);
      expect(attempt.parentSpanId).toBeUndefined();
      expect(attempt.traceId).not.toBe(prescribe.traceId);
      expect(attempt.links).toEqual([{ traceId: prescribe.traceId, spanId: prescribe.spanId }]);
      expect(attempt.attributes).toMatchObject({
        'server.address': '127.0.0.1',
        'server.port': port,
        'http.request.method': 'POST',
        'erx.webhook.attempt': index + 1,
        'erx.webhook.event_type': 'prescription.created',
        'erx.webhook.event_id': eventId,
      });
    }
    expect(attempts.map((a) => [a.attributes['http.response.status_code'], a.attributes['erx.webhook.outcome'], a.statusCode])).toEqual([
      [503, 'http_5xx', 2],
      [200, 'success', 0],
    ]);
    expect(attempts[1]!.attributes['http.request.resend_count']).toBe(1);

    // No identifiers, patient data or secrets anywhere in a span: only route templates.
    const everything = JSON.stringify(spans.map((span) => [span.name, span.attributes]));
    for (const secret of [clinic.g.organizationId, clinic.g.userId, clinic.patientId, clinic.partnerPatientId, clinic.g.partnerId, clinic.g.organizationSecret, clinic.token, scid, HI_DEMO_PATIENTS.activeVerified.family_name, HI_DEMO_PATIENTS.activeVerified.medicare_card_number!, '/hooks']) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('traces off (no OTLP traces endpoint)', () => {
  it('starts no SDK, makes no span and stores no trace context, whatever other OTEL variables say', async () => {
    // Another signal's endpoint and a service name do not turn traces on.
    const s = await serve({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.endpoint}/v1/traces`, OTEL_SERVICE_NAME: 'erx-under-test' });
    expect(s.deps.tracing?.tracer).toBeUndefined();
    const { eventId } = await precheckAndPrescribe(s);
    // No tracer provider is registered: any span made through the API is a no-op.
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    const stored = await s.deps.database.selectFrom('webhook_events').select('traceparent').where('id', '=', eventId).executeTakeFirstOrThrow();
    expect(stored.traceparent).toBeNull();
    await s.server.stop();
    expect(otlp.requests).toEqual([]);
    expect(otlp.spans).toEqual([]);
  });
});

describe('`erx serve` with traces on', () => {
  it('flushes the spans it still holds when SIGTERM stops it, and exits 0', async () => {
    const environment = createCliEnvironment();
    try {
      const { child, url } = await spawnServer({ ...environment.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '600000' });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const health = only(otlp.spans.filter((span) => span.attributes['http.route'] === '/health'), 'the health request');
      expect(health).toMatchObject({ name: 'GET /health', kind: SPAN_KIND.server });
      expect(health.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
      expect(health.resource['service.name']).toBe('erx');
    } finally {
      await environment.cleanup();
    }
  });
});
