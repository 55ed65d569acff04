// Every retry class of the spec's "Limits" against real receivers on 127.0.0.1: how many
// attempts each gets, how far apart (from the recorded times), the outcome class recorded, and
// what the last failure leaves behind. The cases run side by side, one endpoint each, so the
// whole table takes about as long as its slowest case (three 1 s timeouts plus 3 s of backoff).
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts, listWebhookEvents, parseEventFilter } from '../../src/webhooks/index.ts';
import { closedPort, startReceiver, type Receiver, type Responder } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type GivenEndpoint, type WebhooksBed } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');

interface Case {
  name: string;
  /** A receiver answering like this, or a URL nothing can answer at. */
  respond?: Responder;
  url?: () => Promise<string>;
  attempts: number;
  status: 'delivered' | 'failed';
  outcomes: string[];
  statusCodes?: Array<number | null>;
}

const always = (status: number, headers?: Record<string, string>): Responder => () => ({ status, body: `answer ${status}`, headers });
const sequence = (...statuses: number[]): Responder => (_, index) => ({ status: statuses[Math.min(index, statuses.length - 1)]! });

const CASES: Case[] = [
  { name: '200', respond: always(200), attempts: 1, status: 'delivered', outcomes: ['success'], statusCodes: [200] },
  { name: '204', respond: always(204), attempts: 1, status: 'delivered', outcomes: ['success'], statusCodes: [204] },
  { name: '301 (never followed)', respond: always(301, { location: 'http://127.0.0.1:9/elsewhere' }), attempts: 1, status: 'failed', outcomes: ['redirect'], statusCodes: [301] },
  { name: '400', respond: always(400), attempts: 1, status: 'failed', outcomes: ['http_4xx'], statusCodes: [400] },
  { name: '404', respond: always(404), attempts: 1, status: 'failed', outcomes: ['http_4xx'], statusCodes: [404] },
  { name: '410', respond: always(410), attempts: 1, status: 'failed', outcomes: ['http_4xx'], statusCodes: [410] },
  { name: '408', respond: always(408), attempts: 3, status: 'failed', outcomes: ['http_408', 'http_408', 'http_408'], statusCodes: [408, 408, 408] },
  { name: '429', respond: always(429), attempts: 3, status: 'failed', outcomes: ['http_429', 'http_429', 'http_429'], statusCodes: [429, 429, 429] },
  { name: '500', respond: always(500), attempts: 3, status: 'failed', outcomes: ['http_5xx', 'http_5xx', 'http_5xx'], statusCodes: [500, 500, 500] },
  { name: '503', respond: always(503), attempts: 3, status: 'failed', outcomes: ['http_5xx', 'http_5xx', 'http_5xx'], statusCodes: [503, 503, 503] },
  { name: '503 then 200', respond: sequence(503, 200), attempts: 2, status: 'delivered', outcomes: ['http_5xx', 'success'], statusCodes: [503, 200] },
  { name: '500, 502 then 201', respond: sequence(500, 502, 201), attempts: 3, status: 'delivered', outcomes: ['http_5xx', 'http_5xx', 'success'], statusCodes: [500, 502, 201] },
  { name: 'connection refused', url: async () => `http://127.0.0.1:${await closedPort()}/hooks`, attempts: 3, status: 'failed', outcomes: ['connect', 'connect', 'connect'] },
  { name: 'connection reset mid-response', respond: () => 'reset-mid-response', attempts: 3, status: 'failed', outcomes: ['connect', 'connect', 'connect'] },
  { name: 'unresolvable host', url: async () => 'http://no-such-receiver.invalid/hooks', attempts: 3, status: 'failed', outcomes: ['dns', 'dns', 'dns'] },
  { name: 'slower than the timeout', respond: () => 'hang', attempts: 3, status: 'failed', outcomes: ['timeout', 'timeout', 'timeout'] },
  { name: 'a body that stops coming', respond: () => 'stall-body', attempts: 3, status: 'failed', outcomes: ['timeout', 'timeout', 'timeout'], statusCodes: [200, 200, 200] },
];

let bed: WebhooksBed;
const receivers: Receiver[] = [];
beforeAll(async () => {
  bed = await createWebhooksBed({ env: { ERX_WEBHOOK_TIMEOUT_MS: '1000' } });
});
afterAll(async () => {
  await bed.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function setUp(c: Case): Promise<{ c: Case; g: GivenEndpoint; receiver: Receiver | undefined }> {
  const receiver = c.respond ? await startReceiver(c.respond) : undefined;
  if (receiver) receivers.push(receiver);
  const g = await givenEndpoint(bed, receiver ? receiver.url : await c.url!());
  return { c, g, receiver };
}

describe('each attempt per the spec, against real receivers', () => {
  it('retries exactly the retryable classes, 1 s then 2 s apart, and records every attempt', async () => {
    const redirectTarget = await startReceiver();
    receivers.push(redirectTarget);
    const prepared = await Promise.all(CASES.map(setUp));
    bed.startDispatcher();
    const events = await Promise.all(prepared.map(async (p) => ({ ...p, event: await recordEventFor(bed.webhooks, p.g) })));

    for (const { c, event, receiver, g } of events) {
      const log = await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.status !== 'pending', 20_000);
      const [delivery] = log.deliveries;
      const attempts = delivery!.attempts;
      expect({ case: c.name, status: delivery!.status, outcomes: attempts.map((a) => a.outcome) }).toEqual({ case: c.name, status: c.status, outcomes: c.outcomes });
      expect(attempts.map((a) => a.attempt_number)).toEqual(c.outcomes.map((_, i) => i + 1));
      if (c.statusCodes) expect(attempts.map((a) => a.status_code), c.name).toEqual(c.statusCodes);
      expectSpecSpacing(c.name, attempts);
      if (receiver) expectRequestsAsSent(c.name, receiver, event, g.secret, c.attempts);
    }
    expect(redirectTarget.requests).toHaveLength(0);
  }, 40_000);

  it('records the first 4 KiB of an answer, the timeout it waited, and why a connection failed', async () => {
    const failed = await listWebhookEvents(bed.webhooks, parseEventFilter({ status: 'failed', limit: '100' }));
    const reset = failed.find((e) => e.last_outcome === 'connect' && e.last_status_code === 200);
    expect(reset, 'the reset receiver sent a 200 status line before resetting').toBeDefined();
    const hung = failed.filter((e) => e.last_outcome === 'timeout' && e.last_status_code === null);
    expect(hung).toHaveLength(1);
    const timeouts = (await listWebhookAttempts(bed.webhooks, hung[0]!.event_id)).deliveries[0]!.attempts;
    for (const attempt of timeouts) {
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(1000);
      expect(attempt.duration_ms).toBeLessThan(1600);
      expect(attempt.detail).toBe('no complete answer within 1000 ms');
    }
    const dns = failed.find((e) => e.last_outcome === 'dns')!;
    expect((await listWebhookAttempts(bed.webhooks, dns.event_id)).deliveries[0]!.attempts[0]!.detail).toMatch(/ENOTFOUND no-such-receiver\.invalid/);

    const big = await startReceiver(() => ({ status: 500, body: `${'é'.repeat(3000)}tail` }));
    receivers.push(big);
    const g = await givenEndpoint(bed, big.url);
    const event = await recordEventFor(bed.webhooks, g);
    const log = await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.attempts.length > 0);
    const kept = log.deliveries[0]!.attempts[0]!.response_body!;
    expect(Buffer.byteLength(kept.replace(/\ufffd$/, ''), 'utf8')).toBeLessThanOrEqual(4096);
    expect(kept.startsWith('é'.repeat(2048))).toBe(true);
    expect(kept).not.toContain('tail');
  }, 20_000);

  it('logs one warning per failed event, naming the event, the partner and the last outcome, never the payload', () => {
    const warnings = bed.t.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'webhook delivery failed');
    const failedCases = CASES.filter((c) => c.status === 'failed');
    expect(warnings).toHaveLength(failedCases.length);
    for (const warning of warnings) {
      expect(warning.level).toBe(40);
      expect(warning.eventId).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(warning.partnerId).toMatch(/^partner-/);
      expect(typeof warning.outcome).toBe('string');
      expect(JSON.stringify(warning)).not.toMatch(/partner_patient_id|2TM1XVXBJRWXH8NM68|from-sso/);
    }
    expect(warnings.map((w) => w.outcome).sort()).toEqual(failedCases.map((c) => c.outcomes.at(-1)).sort());
  });
});

/** Attempt 2 starts ≥ 1 s after attempt 1 ended, attempt 3 ≥ 2 s after attempt 2 ended (and not much later). */
function expectSpecSpacing(name: string, attempts: Array<{ started_at: string; duration_ms: number }>): void {
  const minimumGap = [1000, 2000];
  for (let i = 1; i < attempts.length; i++) {
    const previousEnd = Date.parse(attempts[i - 1]!.started_at) + attempts[i - 1]!.duration_ms;
    const gap = Date.parse(attempts[i]!.started_at) - previousEnd;
    expect(gap, `${name}: pause before attempt ${i + 1}`).toBeGreaterThanOrEqual(minimumGap[i - 1]!);
    expect(gap, `${name}: pause before attempt ${i + 1}`).toBeLessThan(minimumGap[i - 1]! + 900);
  }
}

/** What reached the receiver: a POST of the stored bytes with the spec's headers, signed afresh each time. */
function expectRequestsAsSent(name: string, receiver: Receiver, event: { event_id: string }, secret: string, attempts: number): void {
  expect(receiver.requests, name).toHaveLength(attempts);
  const stamps: number[] = [];
  for (const request of receiver.requests) {
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Parchment-Webhooks/1.0');
    expect(request.eventId).toBe(event.event_id);
    expect(request.body).toBe(JSON.stringify(event));
    const signature = String(request.headers['x-webhook-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(request.body, signature, secret)).toEqual(event);
    stamps.push(Number(/^t=(\d+)/.exec(signature)![1]));
  }
  // Signed when sent: three attempts span more than 3 s, so the last timestamp is later than the first.
  if (attempts === 3) expect(stamps[2]! - stamps[0]!, name).toBeGreaterThanOrEqual(3);
}
