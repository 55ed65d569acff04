// Claims, leases and fencing tokens, step by step: a leased delivery is not claimed again until
// its lease expires; a claim on an expired lease takes the delivery over with a higher token;
// and the outcome of the attempt made under the older claim is then refused, so only the
// current holder's outcome is recorded.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts } from '../../src/webhooks/index.ts';
import { attemptClaimedDelivery, claimEndpointDeliveries, hasLeaseForAttempt, LEASE_MARGIN_MS, leaseDurationMs, openWebhookSender, recordAttemptOutcomes, releaseClaimedDeliveries, sendClaimedAttempt } from '../../src/webhooks/webhook-deliveries.ts';
import { type WebhookHttpClient } from '../../src/webhooks/webhook-http-attempt.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, givenEndpoint, prescriptionEvent, recordEventFor, recordEvents, type GivenEndpoint, type WebhooksBed } from './webhooks-given.ts';

let bed: WebhooksBed;
let receiver: Receiver;
let sender: WebhookHttpClient;
let g: GivenEndpoint;
beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver();
  sender = openWebhookSender(bed.webhooks);
  g = await givenEndpoint(bed, receiver.url);
});
afterAll(async () => {
  await sender.close();
  await bed.close();
  await receiver.close();
});

async function expireLease(deliveryId: string): Promise<void> {
  await sql`update webhook_deliveries set lease_expires_at = ${new Date(Date.now() - 1).toISOString()} where id = ${deliveryId}`.execute(bed.t.deps.database);
}

describe('claims, leases and fencing', () => {
  it('leases a due delivery for a queue wait, the attempt and a margin, to one claimer at a time', async () => {
    const event = await recordEventFor(bed.webhooks, g);
    const before = Date.now();
    const first = await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'dispatcher-a');
    expect(first.deliveries.map((d) => [d.eventId, d.attempt, d.fencingToken])).toEqual([[event.event_id, 1, 1]]);
    expect(first.deliveries[0]!.body).toBe(JSON.stringify(event));
    const row = await bed.t.deps.database.selectFrom('webhook_deliveries').selectAll().where('id', '=', first.deliveries[0]!.deliveryId).executeTakeFirstOrThrow();
    expect(row.lease_owner).toBe('dispatcher-a');
    const leaseMs = Date.parse(row.lease_expires_at!) - before;
    expect(leaseDurationMs(bed.webhooks)).toBe(2 * bed.webhooks.settings.timeoutMs + LEASE_MARGIN_MS);
    expect(leaseMs).toBeGreaterThanOrEqual(leaseDurationMs(bed.webhooks) - 50);
    expect(leaseMs).toBeLessThan(leaseDurationMs(bed.webhooks) + 1000);
    expect(first.deliveries[0]!.leaseExpiresAt).toBe(Date.parse(row.lease_expires_at!));
    expect(hasLeaseForAttempt(bed.webhooks, first.deliveries[0]!)).toBe(true);

    expect((await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'dispatcher-b')).deliveries).toEqual([]);
    const report = await attemptClaimedDelivery(bed.webhooks, sender, first.endpoint!, first.deliveries[0]!, 'dispatcher-a');
    expect(report).toMatchObject({ outcome: 'success', recorded: true, step: { kind: 'delivered' } });
    expect((await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'dispatcher-b')).deliveries).toEqual([]);
  });

  it('takes an expired lease over with a higher fencing token, and refuses the stale outcome', async () => {
    const event = await recordEventFor(bed.webhooks, g);
    const stale = (await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'crashed')).deliveries[0]!;
    await expireLease(stale.deliveryId);
    const takeover = await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'survivor');
    const current = takeover.deliveries[0]!;
    expect([current.deliveryId, current.attempt, current.fencingToken]).toEqual([stale.deliveryId, 1, stale.fencingToken + 1]);

    const late = await attemptClaimedDelivery(bed.webhooks, sender, takeover.endpoint!, stale, 'crashed');
    expect(late).toMatchObject({ outcome: 'success', recorded: false });
    expect((await listWebhookAttempts(bed.webhooks, event.event_id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: [] });

    const onTime = await attemptClaimedDelivery(bed.webhooks, sender, takeover.endpoint!, current, 'survivor');
    expect(onTime.recorded).toBe(true);
    const log = await listWebhookAttempts(bed.webhooks, event.event_id);
    expect(log.deliveries[0]!.status).toBe('delivered');
    expect(log.deliveries[0]!.attempts.map((a) => [a.attempt_number, a.sent_by])).toEqual([[1, 'survivor']]);
  });

  it('claims no more than asked, and nothing not yet due', async () => {
    const events = await recordEvents(bed.webhooks, Array.from({ length: 5 }, () => prescriptionEvent(g)));
    const claimed = await claimEndpointDeliveries(bed.webhooks, g.partnerId, 3, 'dispatcher-a');
    expect(claimed.deliveries).toHaveLength(3);
    const rest = await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'dispatcher-b');
    expect([...claimed.deliveries, ...rest.deliveries].map((d) => d.eventId).sort()).toEqual(events.map((e) => e.event_id).sort());

    const later = await recordEventFor(bed.webhooks, g);
    await sql`update webhook_deliveries set next_attempt_at = ${new Date(Date.now() + 60_000).toISOString()} where event_id = ${later.event_id}`.execute(bed.t.deps.database);
    expect((await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'dispatcher-a')).deliveries).toEqual([]);
  });

  it('gives back unused claims, claimable again at once; no attempt starts on a lease too short to finish it', async () => {
    const event = await recordEventFor(bed.webhooks, g);
    const { endpoint, deliveries: claimed } = await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'stopping');
    expect(claimed.map((d) => d.eventId)).toEqual([event.event_id]);
    const nearlyOver = { ...claimed[0]!, leaseExpiresAt: Date.now() + bed.webhooks.settings.timeoutMs + LEASE_MARGIN_MS - 100 };
    expect(hasLeaseForAttempt(bed.webhooks, nearlyOver)).toBe(false);
    await releaseClaimedDeliveries(bed.webhooks, claimed);
    const again = (await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'next')).deliveries;
    expect(again.map((d) => [d.eventId, d.fencingToken])).toEqual([[event.event_id, claimed[0]!.fencingToken + 1]]);
    // A release under a stale token leaves the current holder's lease alone.
    await releaseClaimedDeliveries(bed.webhooks, claimed);
    expect((await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'third')).deliveries).toEqual([]);
    expect((await attemptClaimedDelivery(bed.webhooks, sender, endpoint!, again[0]!, 'next')).recorded).toBe(true);
  });

  it('claims nothing for a disabled endpoint', async () => {
    const other = await givenEndpoint(bed, receiver.url);
    await recordEventFor(bed.webhooks, other);
    await sql`update partners set webhook_enabled = 0 where id = ${other.partnerId}`.execute(bed.t.deps.database);
    expect(await claimEndpointDeliveries(bed.webhooks, other.partnerId, 10, 'dispatcher-a')).toEqual({ endpoint: undefined, deliveries: [] });
  });

  it('records a batch of outcomes at once, each only under its current fencing token', async () => {
    const [taken, other] = await recordEvents(bed.webhooks, [prescriptionEvent(g), prescriptionEvent(g)]);
    const first = await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'crashed');
    const stale = first.deliveries.find((d) => d.eventId === taken!.event_id)!;
    const kept = first.deliveries.find((d) => d.eventId === other!.event_id)!;
    await expireLease(stale.deliveryId);
    const current = (await claimEndpointDeliveries(bed.webhooks, g.partnerId, 10, 'survivor')).deliveries[0]!;
    expect(current.deliveryId).toBe(stale.deliveryId);

    // The same delivery under its old and its new token, and another delivery, in one batch.
    const batch = await Promise.all([stale, current, kept].map(async (delivery) => ({ delivery, result: await sendClaimedAttempt(bed.webhooks, sender, first.endpoint!, delivery) })));
    const reports = await recordAttemptOutcomes(bed.webhooks, batch, 'batcher');
    expect(reports.map((r) => [r.delivery.fencingToken, r.recorded, r.step.kind])).toEqual([
      [stale.fencingToken, false, 'delivered'],
      [current.fencingToken, true, 'delivered'],
      [kept.fencingToken, true, 'delivered'],
    ]);
    for (const event of [taken!, other!]) {
      const [delivery] = (await listWebhookAttempts(bed.webhooks, event.event_id)).deliveries;
      expect(delivery).toMatchObject({ status: 'delivered' });
      expect(delivery!.attempts.map((a) => [a.attempt_number, a.outcome, a.sent_by])).toEqual([[1, 'success', 'batcher']]);
    }
  });
});
