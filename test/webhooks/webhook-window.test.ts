// A bounded number of deliveries in flight per endpoint (ERX_WEBHOOK_MAX_IN_FLIGHT), and the
// receiver's way to slow us down: each 429 halves that endpoint's window, each success widens
// it again. Measured at real receivers that hold every request 100 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookEvents, parseEventFilter } from '../../src/webhooks/index.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, prescriptionEvent, recordEvents, type WebhooksBed } from './webhooks-given.ts';

const MAX_IN_FLIGHT = 8;
const EVENTS = 40;
let bed: WebhooksBed;
const receivers: Receiver[] = [];
beforeAll(async () => {
  bed = await createWebhooksBed({ env: { ERX_WEBHOOK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT) } });
});
afterAll(async () => {
  await bed.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe("an endpoint's in-flight window", () => {
  it('holds at most the configured number in flight; after 429s one at a time, then widens again as answers succeed', async () => {
    const steady = await startReceiver(() => ({ status: 200, delayMs: 100 }));
    const throttling = await startReceiver((_, index) => ({ status: index < MAX_IN_FLIGHT ? 429 : 200, delayMs: 100 }));
    receivers.push(steady, throttling);
    const [a, b] = await Promise.all([givenEndpoint(bed, steady.url), givenEndpoint(bed, throttling.url)]);
    await recordEvents(bed.webhooks, [...Array.from({ length: EVENTS }, () => prescriptionEvent(a)), ...Array.from({ length: EVENTS }, () => prescriptionEvent(b))]);
    bed.startDispatcher();

    await steady.waitForRequests(EVENTS);
    // The first wave of 8 answered 429 and is retried once each: 48 requests in all.
    await throttling.waitForRequests(EVENTS + MAX_IN_FLIGHT, 20_000);
    expect(steady.peakConcurrency()).toBe(MAX_IN_FLIGHT);

    const concurrency = throttling.requests.map((r) => r.concurrentAtArrival);
    expect(Math.max(...concurrency.slice(0, MAX_IN_FLIGHT))).toBe(MAX_IN_FLIGHT);
    // Eight 429s halved the window to 1: the next request went out alone...
    expect(concurrency[MAX_IN_FLIGHT]).toBe(1);
    expect(Math.max(...concurrency.slice(MAX_IN_FLIGHT, MAX_IN_FLIGHT + 3))).toBeLessThanOrEqual(2);
    // (widening by one per success, the window is back at 8 only after 7 successes: not within the next 8 requests)
    expect(Math.max(...concurrency.slice(MAX_IN_FLIGHT, 2 * MAX_IN_FLIGHT))).toBeLessThan(MAX_IN_FLIGHT);
    // ...and successes widened it back to the maximum, never past it.
    expect(Math.max(...concurrency.slice(MAX_IN_FLIGHT))).toBe(MAX_IN_FLIGHT);
    expect(throttling.peakConcurrency()).toBe(MAX_IN_FLIGHT);

    const delivered = await eventually(
      () => listWebhookEvents(bed.webhooks, parseEventFilter({ partner: b.partnerId, status: 'delivered', limit: '1000' })),
      (events) => events.length === EVENTS,
    );
    expect(delivered.filter((e) => e.attempts === 2)).toHaveLength(MAX_IN_FLIGHT);
  }, 30_000);
});
