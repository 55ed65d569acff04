// POST /v1/partner/webhook-events/recover replays at a bounded rate: the replays of 25 failed
// events are due 10 a second (the dispatcher sends none early), and only the window's failed
// events of the calling partner are taken.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECOVER_PER_SECOND } from '../../src/webhooks/partner-webhooks.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { prescriptionEvent } from './webhooks-given.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function givenEventWithDelivery(g: GivenIntegration, status: 'failed' | 'delivered', createdAt: string): Promise<string> {
  const event = prescriptionEvent(g);
  await t.deps.database.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_events').values({ id: event.event_id, event_type: event.event_type, partner_id: g.partnerId, organization_id: g.organizationId, body: JSON.stringify(event), created_at: createdAt }).execute();
    await trx.insertInto('webhook_deliveries').values({ id: randomUUID(), event_id: event.event_id, partner_id: g.partnerId, reason: 'event', requested_by: null, status, next_attempt_at: createdAt, created_at: createdAt }).execute();
  });
  return event.event_id;
}

describe('recover', () => {
  it('replays the failed events of the window, due RECOVER_PER_SECOND a second', async () => {
    const g = await givenIntegration(t);
    const other = await givenIntegration(t);
    const inWindow = '2026-11-21T10:00:00.000Z';
    const failed: string[] = [];
    for (let i = 0; i < 25; i++) failed.push(await givenEventWithDelivery(g, 'failed', inWindow));
    await givenEventWithDelivery(g, 'delivered', inWindow);
    await givenEventWithDelivery(g, 'failed', '2026-11-20T10:00:00.000Z'); // before the window
    await givenEventWithDelivery(other, 'failed', inWindow); // another partner's
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/partner/webhook-events/recover',
      headers: { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret, 'content-type': 'application/json' },
      payload: JSON.stringify({ since: '2026-11-21T00:00:00Z', until: '2026-11-21T23:59:59Z' }),
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toMatchObject({ dry_run: false, count: 25, per_second: RECOVER_PER_SECOND });
    const replays = await t.deps.database.selectFrom('webhook_deliveries').select(['event_id', 'next_attempt_at', 'requested_by']).where('reason', '=', 'replay').where('partner_id', '=', g.partnerId).execute();
    expect(replays.map((d) => d.event_id).sort()).toEqual([...failed].sort());
    expect(new Set(replays.map((d) => d.requested_by))).toEqual(new Set([`partner:${g.partnerId}`]));
    const now = t.clock.now().getTime();
    const perSecond = new Map<number, number>();
    for (const d of replays) {
      const second = (Date.parse(d.next_attempt_at) - now) / 1000;
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Object.fromEntries(perSecond)).toEqual({ 0: 10, 1: 10, 2: 5 });
  });
});
