// The one test that runs the spec's own timeout (no ERX_WEBHOOK_TIMEOUT_MS): an answer after
// 9.5 s is a success, no answer within 10 s is a timeout (and retried 1 s later). The two
// endpoints run side by side, so the test takes about 11 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts } from '../../src/webhooks/index.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type WebhooksBed } from './webhooks-given.ts';

let bed: WebhooksBed;
const receivers: Receiver[] = [];
beforeAll(async () => {
  bed = await createWebhooksBed({ env: { ERX_WEBHOOK_TIMEOUT_MS: '' } });
});
afterAll(async () => {
  await bed.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe("the spec's 10 s per attempt", () => {
  it('is what runs by default: 9.5 s is in time, silence is cut at 10 s', async () => {
    expect(bed.webhooks.settings.timeoutMs).toBe(10_000);
    const slow = await startReceiver(() => ({ status: 200, delayMs: 9_500 }));
    const silentOnce = await startReceiver((_, index) => (index === 0 ? 'hang' : { status: 200 }));
    receivers.push(slow, silentOnce);
    const [a, b] = await Promise.all([givenEndpoint(bed, slow.url), givenEndpoint(bed, silentOnce.url)]);
    bed.startDispatcher();
    const [inTime, cut] = await Promise.all([recordEventFor(bed.webhooks, a), recordEventFor(bed.webhooks, b)]);

    const done = (eventId: string) => eventually(() => listWebhookAttempts(bed.webhooks, eventId), (l) => l.deliveries[0]!.status !== 'pending', 16_000);
    const [slowLog, cutLog] = await Promise.all([done(inTime.event_id), done(cut.event_id)]);

    const [answered] = slowLog.deliveries[0]!.attempts;
    expect(slowLog.deliveries[0]!.status).toBe('delivered');
    expect(answered).toMatchObject({ attempt_number: 1, outcome: 'success', status_code: 200 });
    expect(answered!.duration_ms).toBeGreaterThanOrEqual(9_500);

    const [timedOut, retried] = cutLog.deliveries[0]!.attempts;
    expect(cutLog.deliveries[0]!.status).toBe('delivered');
    expect(timedOut).toMatchObject({ attempt_number: 1, outcome: 'timeout', detail: 'no complete answer within 10000 ms' });
    expect(timedOut!.duration_ms).toBeGreaterThanOrEqual(10_000);
    expect(timedOut!.duration_ms).toBeLessThan(10_600);
    expect(retried).toMatchObject({ attempt_number: 2, outcome: 'success' });
  }, 25_000);
});
