// Operators see what happened and replay: a replay is a new delivery of the same event (same
// bytes, same event_id, a fresh signature, the spec's 3 attempts again), recorded with who
// asked and when; replaying twice delivers twice; bulk replay chooses by partner and status.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts, listWebhookEvents, parseEventFilter, replayWebhookEvents } from '../../src/webhooks/index.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, prescriptionEvent, recordEvents, type GivenEndpoint, type WebhooksBed } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');
let bed: WebhooksBed;
let receiver: Receiver;
/** What the receiver answers; tests switch it. */
let answer = 503;
let g: GivenEndpoint;
beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver(() => ({ status: answer }));
  g = await givenEndpoint(bed, receiver.url);
  bed.startDispatcher();
});
afterAll(async () => {
  await bed.close();
  await receiver.close();
});

const statusOf = async (eventId: string) => (await listWebhookAttempts(bed.webhooks, eventId)).deliveries.at(-1)!.status;
const filter = (input: Parameters<typeof parseEventFilter>[0]) => parseEventFilter(input);

describe('events, attempts and replay', () => {
  it('replays a failed event as a new delivery: same body and event_id, fresh signature, who and when recorded', async () => {
    answer = 503;
    const [event] = await recordEvents(bed.webhooks, [prescriptionEvent(g)]);
    await eventually(() => statusOf(event!.event_id), (s) => s === 'failed', 10_000);
    const failed = await listWebhookEvents(bed.webhooks, filter({ partner: g.partnerId, status: 'failed' }));
    expect(failed.map((e) => e.event_id)).toEqual([event!.event_id]);
    expect(failed[0]).toMatchObject({ status: 'failed', attempts: 3, last_outcome: 'http_5xx', last_status_code: 503, event_type: 'prescription.created' });

    answer = 200;
    const requestedAt = Date.now();
    const replay = await replayWebhookEvents(bed.webhooks, { eventIds: [event!.event_id], requestedBy: 'alice', dryRun: false });
    expect(replay).toMatchObject({ dry_run: false, requested_by: 'alice', matched: 1 });
    expect(replay.replayed[0]!.delivery_id).toMatch(/^dlv_[0-9a-f]{32}$/);
    await eventually(() => statusOf(event!.event_id), (s) => s === 'delivered');

    const log = await listWebhookAttempts(bed.webhooks, event!.event_id);
    expect(log.deliveries.map((d) => [d.reason, d.requested_by, d.status, d.attempts.map((a) => a.outcome)])).toEqual([
      ['event', null, 'failed', ['http_5xx', 'http_5xx', 'http_5xx']],
      ['replay', 'alice', 'delivered', ['success']],
    ]);
    expect(Date.parse(log.deliveries[1]!.requested_at)).toBeGreaterThanOrEqual(requestedAt - 5);
    const sent = receiver.requests.filter((r) => r.eventId === event!.event_id);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((r) => r.body))).toEqual(new Set([JSON.stringify(event)]));
    const [first, replayed] = [sent[0]!, sent[3]!];
    expect(replayed.headers['x-webhook-signature']).not.toBe(first.headers['x-webhook-signature']);
    expect(stripe.webhooks.constructEvent(replayed.body, String(replayed.headers['x-webhook-signature']), g.secret)).toEqual(event);
    expect((await listWebhookEvents(bed.webhooks, filter({ partner: g.partnerId, status: 'delivered' }))).map((e) => e.event_id)).toContain(event!.event_id);
    expect(await listWebhookEvents(bed.webhooks, filter({ partner: g.partnerId, status: 'failed' }))).toEqual([]);
  }, 15_000);

  it('replaying an event twice delivers it twice', async () => {
    answer = 200;
    const [event] = await recordEvents(bed.webhooks, [prescriptionEvent(g)]);
    await eventually(() => statusOf(event!.event_id), (s) => s === 'delivered');
    await replayWebhookEvents(bed.webhooks, { eventIds: [event!.event_id, event!.event_id], requestedBy: 'bob', dryRun: false });
    await replayWebhookEvents(bed.webhooks, { eventIds: [event!.event_id], requestedBy: 'carol', dryRun: false });
    const log = await eventually(
      () => listWebhookAttempts(bed.webhooks, event!.event_id),
      (l) => l.deliveries.length === 3 && l.deliveries.every((d) => d.status === 'delivered'),
    );
    expect(log.deliveries.map((d) => d.requested_by)).toEqual([null, 'bob', 'carol']);
    expect(receiver.requests.filter((r) => r.eventId === event!.event_id)).toHaveLength(3);
  });

  it("bulk replay picks one partner's events by status, type and time, oldest first, up to a limit; a dry run changes nothing", async () => {
    answer = 404;
    const other = await givenEndpoint(bed, receiver.url);
    // Created a millisecond apart, so "oldest first" has one answer.
    const base = Date.now();
    const stamped = [prescriptionEvent(g), prescriptionEvent(g, 'prescription.cancelled'), prescriptionEvent(g)].map((e, i) => ({ ...e, timestamp: new Date(base + i).toISOString() }));
    const created = await recordEvents(bed.webhooks, stamped);
    const elsewhere = await recordEvents(bed.webhooks, [prescriptionEvent(other)]);
    for (const e of [...created, ...elsewhere]) await eventually(() => statusOf(e.event_id), (s) => s === 'failed');

    const since = created[0]!.timestamp;
    const dry = await replayWebhookEvents(bed.webhooks, { filter: filter({ partner: g.partnerId, status: 'failed', since }), requestedBy: 'ops', dryRun: true });
    expect(dry).toMatchObject({ dry_run: true, matched: 3 });
    expect(dry.replayed).toEqual(created.map((e) => ({ event_id: e.event_id, delivery_id: null })));
    expect(await statusOf(created[0]!.event_id)).toBe('failed');

    const typed = await replayWebhookEvents(bed.webhooks, { filter: filter({ partner: g.partnerId, status: 'failed', type: 'prescription.cancelled' }), requestedBy: 'ops', dryRun: true });
    expect(typed.replayed.map((r) => r.event_id)).toEqual([created[1]!.event_id]);
    const until = await replayWebhookEvents(bed.webhooks, { filter: filter({ partner: g.partnerId, status: 'failed', since, until: created[0]!.timestamp }), requestedBy: 'ops', dryRun: true });
    expect(until.replayed.map((r) => r.event_id)).toEqual([created[0]!.event_id]);

    answer = 200;
    const progress: Array<[number, number]> = [];
    const result = await replayWebhookEvents(bed.webhooks, {
      filter: filter({ partner: g.partnerId, status: 'failed', since, limit: '2' }),
      requestedBy: 'ops',
      dryRun: false,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(result.replayed.map((r) => r.event_id)).toEqual([created[0]!.event_id, created[1]!.event_id]);
    expect(progress).toEqual([[2, 2]]);
    for (const e of created.slice(0, 2)) await eventually(() => statusOf(e.event_id), (s) => s === 'delivered');
    expect(await statusOf(created[2]!.event_id)).toBe('failed');
    expect(await statusOf(elsewhere[0]!.event_id)).toBe('failed');
  }, 15_000);

  it('refuses what it cannot do, replaying nothing', async () => {
    const [event] = await recordEvents(bed.webhooks, [prescriptionEvent(g)]);
    const unknown = 'evt_00000000000000000000000000000000';
    await expect(replayWebhookEvents(bed.webhooks, { eventIds: [event!.event_id, unknown], requestedBy: 'x', dryRun: false })).rejects.toThrow(
      `event not found: ${unknown}; nothing was replayed`,
    );
    expect((await listWebhookAttempts(bed.webhooks, event!.event_id)).deliveries).toHaveLength(1);
    await expect(replayWebhookEvents(bed.webhooks, { requestedBy: 'x', dryRun: false })).rejects.toThrow(/needs event ids, or --partner and --status/);
    await expect(replayWebhookEvents(bed.webhooks, { filter: filter({ partner: g.partnerId }), requestedBy: 'x', dryRun: false })).rejects.toThrow(/--partner and --status/);
    await expect(replayWebhookEvents(bed.webhooks, { filter: filter({ partner: g.partnerId, status: 'pending' }), requestedBy: 'x', dryRun: false })).rejects.toThrow(/still being delivered/);
    await expect(replayWebhookEvents(bed.webhooks, { filter: filter({ partner: 'nobody', status: 'failed' }), requestedBy: 'x', dryRun: false })).rejects.toThrow('partner nobody not found');
    await expect(listWebhookAttempts(bed.webhooks, unknown)).rejects.toThrow(`event ${unknown} not found`);
  });

  it.each([
    [{ status: 'lost' }, /--status must be one of pending, delivered, failed/],
    [{ since: 'yesterday' }, /--since must be an ISO-8601 date/],
    [{ until: '2026-13-45' }, /--until must be an ISO-8601 date/],
    [{ since: '2026-11-24', until: '2026-11-23' }, /--since must not be after --until/],
    [{ limit: '0' }, /--limit must be a whole number/],
    [{ limit: 'ten' }, /--limit must be a whole number/],
  ])('refuses the filter %o', (input, message) => {
    expect(() => parseEventFilter(input)).toThrow(message);
  });

  it('reads dates and date-times, normalised to the stored ISO form', () => {
    expect(parseEventFilter({ since: '2026-11-24', until: '2026-11-24T10:00:00+10:00' })).toMatchObject({ since: '2026-11-24T00:00:00.000Z', until: '2026-11-24T00:00:00.000Z' });
  });
});
