// What reaches which receiver. Events are recorded only for validated organizations (the
// prescriptions service's gate); here: only committed events are sent, each to the endpoint of
// the event's own partner, signed with that partner's secret, and the first attempt starts at
// once after the commit, not at a poll.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts, recordEvent } from '../../src/webhooks/index.ts';
import { givenIntegration } from '../given.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, prescriptionEvent, recordEventFor, recordEvents, type WebhooksBed } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');
let bed: WebhooksBed;
let receiverA: Receiver;
let receiverB: Receiver;
beforeAll(async () => {
  // A poll far longer than any wait below: whatever arrives was woken by the commit.
  bed = await createWebhooksBed({ env: { ERX_WEBHOOK_POLL_MS: '1000' } });
  [receiverA, receiverB] = await Promise.all([startReceiver(), startReceiver()]);
  bed.startDispatcher();
});
afterAll(async () => {
  await bed.close();
  await Promise.all([receiverA.close(), receiverB.close()]);
});

describe('which events go where', () => {
  it("delivers each event to its own partner's endpoint, signed with that partner's secret", async () => {
    const a = await givenEndpoint(bed, receiverA.url);
    const b = await givenEndpoint(bed, receiverB.url);
    // One organization that enabled both partners: its events still go to the partner they belong to.
    const shared = await givenIntegration(bed.t, { partner: { partner_id: b.partnerId, partner_secret: b.partnerSecret } });
    const forA = await recordEvents(bed.webhooks, [prescriptionEvent(a), prescriptionEvent(a, 'prescription.ceased')]);
    const forB = await recordEvents(bed.webhooks, [prescriptionEvent(b), prescriptionEvent({ ...shared, partnerId: b.partnerId }, 'prescription.reissued')]);
    await receiverA.waitForRequests(2);
    await receiverB.waitForRequests(2);
    expect(receiverA.requests.map((r) => r.eventId).sort()).toEqual(forA.map((e) => e.event_id).sort());
    expect(receiverB.requests.map((r) => r.eventId).sort()).toEqual(forB.map((e) => e.event_id).sort());
    for (const r of receiverA.requests) expect(stripe.webhooks.constructEvent(r.body, String(r.headers['x-webhook-signature']), a.secret)).toBeTruthy();
    for (const r of receiverB.requests) {
      expect(stripe.webhooks.constructEvent(r.body, String(r.headers['x-webhook-signature']), b.secret)).toBeTruthy();
      expect(() => stripe.webhooks.constructEvent(r.body, String(r.headers['x-webhook-signature']), a.secret)).toThrow();
    }
  });

  it('never sends an event whose transaction rolled back; it leaves no event and no delivery', async () => {
    const g = await givenEndpoint(bed, receiverA.url);
    const rolledBack = prescriptionEvent(g);
    await expect(
      bed.webhooks.unitOfWork.run(async (work) => {
        recordEvent(work, rolledBack);
        throw new Error('the change failed after its event was written');
      }),
    ).rejects.toThrow('the change failed');
    const committed = await recordEventFor(bed.webhooks, g);
    await eventually(() => listWebhookAttempts(bed.webhooks, committed.event_id), (l) => l.deliveries[0]!.status === 'delivered');
    await expect(listWebhookAttempts(bed.webhooks, rolledBack.event_id)).rejects.toThrow(`event ${rolledBack.event_id} not found`);
    const rows = await bed.t.deps.database.selectFrom('webhook_deliveries').select('id').where('event_id', '=', rolledBack.event_id).execute();
    expect(rows).toEqual([]);
    expect(receiverA.requests.some((r) => r.eventId === rolledBack.event_id)).toBe(false);
  });

  it('sends nothing for a partner that has no events, however many others have', async () => {
    const quiet = await startReceiver();
    try {
      await givenEndpoint(bed, quiet.url);
      const busy = await givenEndpoint(bed, receiverB.url);
      const before = receiverB.requests.length;
      await recordEvents(bed.webhooks, Array.from({ length: 5 }, () => prescriptionEvent(busy)));
      await receiverB.waitForRequests(before + 5);
      expect(quiet.requests).toHaveLength(0);
    } finally {
      await quiet.close();
    }
  });

  it('starts the first attempt right after the commit, without waiting for a poll', async () => {
    const g = await givenEndpoint(bed, receiverA.url);
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const before = receiverA.requests.length;
      const committedAt = Date.now();
      await recordEventFor(bed.webhooks, g);
      const [request] = (await receiverA.waitForRequests(before + 1, 2_000)).slice(before);
      latencies.push(request!.receivedAt - committedAt);
    }
    latencies.sort((x, y) => x - y);
    // A poll would put the median near half a second.
    expect(latencies[5]).toBeLessThan(100);
  });
});
