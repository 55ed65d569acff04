// What a partner's secret alone can set going is bounded (issue 38 item 5). The attack, as it
// worked before: pings as fast as the partner asked (each an outbound request at its word),
// any number of recovers at once (each scheduling up to 10,000 replays at 10 a second, so
// together past the bounded rate), and replays of the same event without end (each a new row
// of the outbox). Now: one ping per partner every PING_INTERVAL_SECONDS (429 with Retry-After),
// one recover per partner until its last replay is due (409 with Retry-After), and at most
// MAX_PENDING_REPLAYS replays waiting (429). Each limit is the calling partner's alone.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setWebhookEndpoint } from '../../src/webhooks/index.ts';
import { MAX_PENDING_REPLAYS, PING_INTERVAL_SECONDS, RECOVER_PER_SECOND } from '../../src/webhooks/partner-webhooks.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { prescriptionEvent } from './webhooks-given.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

function partnerCall(g: Pick<GivenIntegration, 'partnerId' | 'partnerSecret'>, method: 'POST', url: string, body?: unknown) {
  const headers = { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}

/** Failed events of the integration, with a validated organization (what recover takes). */
async function givenFailedEvents(g: GivenIntegration, count: number): Promise<string[]> {
  const createdAt = t.clock.now().toISOString();
  const events = Array.from({ length: count }, () => prescriptionEvent(g));
  await t.deps.database.transaction().execute(async (trx) => {
    for (const event of events) {
      await trx.insertInto('webhook_events').values({ id: event.event_id, event_type: event.event_type, partner_id: g.partnerId, organization_id: g.organizationId, body: JSON.stringify(event), created_at: createdAt }).execute();
      await trx.insertInto('webhook_deliveries').values({ id: randomUUID(), event_id: event.event_id, partner_id: g.partnerId, reason: 'event', requested_by: null, status: 'failed', next_attempt_at: createdAt, created_at: createdAt }).execute();
    }
  });
  // Later replays are then strictly newer than these deliveries (the latest delivery decides an event's status).
  t.clock.advanceSeconds(1);
  return events.map((e) => e.event_id);
}

const recover = (g: GivenIntegration) => partnerCall(g, 'POST', '/v1/partner/webhook-events/recover', { since: '2020-01-01T00:00:00Z' });

describe('ping', () => {
  it(`answers 429 with Retry-After within ${PING_INTERVAL_SECONDS} s of the partner's last ping, and another partner is not held`, async () => {
    const g = await givenIntegration(t);
    const other = await givenIntegration(t);
    for (const p of [g, other]) await setWebhookEndpoint(t.features.webhooks, p.partnerId, receiver.url);
    const ping = (p: GivenIntegration) => partnerCall(p, 'POST', '/v1/partner/webhook-endpoint/ping');
    expect((await ping(g)).statusCode).toBe(200);
    t.clock.advanceSeconds(3);
    const refused = await ping(g);
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(PING_INTERVAL_SECONDS - 3));
    expect(refused.json().error.detail).toContain(`one ping every ${PING_INTERVAL_SECONDS} seconds`);
    expect((await ping(other)).statusCode).toBe(200);
    t.clock.advanceSeconds(PING_INTERVAL_SECONDS - 3);
    expect((await ping(g)).statusCode).toBe(200);
    expect(receiver.requests).toHaveLength(3);
  });
});

describe('recover', () => {
  it('runs once per partner at a time: a second, concurrent or before the first one’s last replay is due, is refused 409', async () => {
    const g = await givenIntegration(t);
    const other = await givenIntegration(t);
    await givenFailedEvents(g, 25);
    await givenFailedEvents(other, 1);
    const recoveredAt = t.clock.now().getTime();
    const [first, second] = await Promise.all([recover(g), recover(g)]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses).toEqual([200, 409]);
    const refused = first.statusCode === 409 ? first : second;
    expect(refused.json().error.detail).toContain('already running');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((first.statusCode === 200 ? first : second).json().data.count).toBe(25);
    expect((await recover(other)).statusCode).toBe(200);

    // Its 25 replays are due over 25 / RECOVER_PER_SECOND seconds: until then the recover runs.
    await givenFailedEvents(g, 1);
    const later = await recover(g);
    expect(later.statusCode).toBe(409);
    const lastDueInSeconds = (recoveredAt + Math.ceil(25 / RECOVER_PER_SECOND) * 1000 - t.clock.now().getTime()) / 1000;
    expect(later.headers['retry-after']).toBe(String(lastDueInSeconds));
    t.clock.advanceSeconds(lastDueInSeconds);
    const after = await recover(g);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().data.count).toBe(1);
    // A dry run only reads: it is never refused as running.
    expect((await partnerCall(g, 'POST', '/v1/partner/webhook-events/recover', { since: '2020-01-01T00:00:00Z', dry_run: true })).statusCode).toBe(200);
  });
});

describe('waiting replays', () => {
  it(`are capped at MAX_PENDING_REPLAYS (${MAX_PENDING_REPLAYS}) per partner: a replay or recover past it answers 429 and schedules nothing`, async () => {
    const g = await givenIntegration(t);
    const other = await givenIntegration(t);
    const [event] = await givenFailedEvents(g, 2);
    const [otherEvent] = await givenFailedEvents(other, 1);
    const now = t.clock.now().toISOString();
    const waiting = Array.from({ length: MAX_PENDING_REPLAYS }, () => ({ id: randomUUID(), event_id: event!, partner_id: g.partnerId, reason: 'replay' as const, requested_by: `partner:${g.partnerId}`, status: 'pending' as const, next_attempt_at: now, created_at: now }));
    for (let i = 0; i < waiting.length; i += 500) await t.deps.database.insertInto('webhook_deliveries').values(waiting.slice(i, i + 500)).execute();
    const count = async () => Number((await t.deps.database.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('partner_id', '=', g.partnerId).executeTakeFirstOrThrow()).n);
    const before = await count();

    const replay = await partnerCall(g, 'POST', `/v1/partner/webhook-events/${event}/replay`);
    expect(replay.statusCode, replay.body).toBe(429);
    expect(replay.json().error.detail).toContain(`at most ${MAX_PENDING_REPLAYS} may wait`);
    const refused = await recover(g);
    expect(refused.statusCode, refused.body).toBe(429);
    expect(await count()).toBe(before);
    // Another partner's waiting replays are its own.
    expect((await partnerCall(other, 'POST', `/v1/partner/webhook-events/${otherEvent}/replay`)).statusCode).toBe(200);

    // Once they are sent, the partner replays again, and the refused recover left no recover running.
    await t.deps.database.updateTable('webhook_deliveries').set({ status: 'delivered' }).where('partner_id', '=', g.partnerId).where('reason', '=', 'replay').execute();
    expect((await recover(g)).statusCode).toBe(200);
    expect((await partnerCall(g, 'POST', `/v1/partner/webhook-events/${event}/replay`)).statusCode).toBe(200);
  });

  it('another partner\'s credentials or a bad body reach no recover or replay', async () => {
    const g = await givenIntegration(t);
    const [event] = await givenFailedEvents(g, 1);
    const stranger = await givenIntegration(t);
    expect((await partnerCall(stranger, 'POST', `/v1/partner/webhook-events/${event}/replay`)).statusCode).toBe(404);
    expect((await partnerCall({ partnerId: g.partnerId, partnerSecret: stranger.partnerSecret }, 'POST', '/v1/partner/webhook-endpoint/ping')).statusCode).toBe(401);
    expect((await partnerCall(g, 'POST', '/v1/partner/webhook-events/recover', { since: 'yesterday' })).statusCode).toBeGreaterThanOrEqual(400);
    expect((await partnerCall(g, 'POST', '/v1/partner/webhook-events/recover', { since: '2026-11-21T00:00:00Z', extra: 1 })).statusCode).toBeGreaterThanOrEqual(400);
  });
});
