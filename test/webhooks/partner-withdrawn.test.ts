// An organization that withdrew a partner (`erx org disable-partner`) is out of the partner's
// reach (issue 38 item 5). The attack, as it worked before: with its secret alone the partner
// still listed that organization's events, read their attempts, replayed and recovered them,
// and the dispatcher kept sending their pending deliveries. Now: the event detail and a replay
// are refused (403), lists and recover skip those events, the event feed refuses the
// partner's tokens, and the dispatcher ends the organization's pending deliveries (its own and
// replays, the operator's included) as failed with `ended_because`, without sending them. The
// same partner's other organization is served as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { disablePartnerForOrganization } from '../../src/onboarding/index.ts';
import { replayWebhookEvents } from '../../src/webhooks/index.ts';
import { bearer, givenIntegration, requestToken, type GivenIntegration } from '../given.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type GivenEndpoint, type WebhooksBed } from './webhooks-given.ts';

let bed: WebhooksBed;
let receiver: Receiver;
beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
});
afterAll(async () => {
  await bed?.close();
  await receiver?.close();
});

/** A partner with its endpoint at the receiver, enabled by two validated organizations: `withdrawn` (to be withdrawn) and `kept`. */
async function givenPartnerOfTwo(): Promise<{ withdrawn: GivenEndpoint; kept: GivenIntegration }> {
  const withdrawn = await givenEndpoint(bed, receiver.url);
  const kept = await givenIntegration(bed.t, { partner: { partner_id: withdrawn.partnerId, partner_secret: withdrawn.partnerSecret } });
  await sql`update organization_partners set validated_at = ${new Date().toISOString()} where organization_id = ${kept.organizationId}`.execute(bed.t.deps.database);
  return { withdrawn, kept };
}

let dispatching = false;
/** Starts the bed's dispatcher once (the first test records events before it runs). */
function startDispatching(): void {
  if (!dispatching) bed.startDispatcher();
  dispatching = true;
}

const withdraw = (g: GivenIntegration) => disablePartnerForOrganization(bed.t.features.onboarding, { organizationId: g.organizationId, partnerId: g.partnerId });

async function deliveryOf(eventId: string, reason: 'event' | 'replay' = 'event') {
  return bed.t.deps.database.selectFrom('webhook_deliveries').select(['status', 'ended_because', 'attempts_made']).where('event_id', '=', eventId).where('reason', '=', reason).executeTakeFirstOrThrow();
}

function partnerCall(g: GivenIntegration, method: 'GET' | 'POST', url: string, body?: unknown) {
  const headers = { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return bed.t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}

describe('the dispatcher, for an organization that withdrew the partner', () => {
  it('ends its pending deliveries as failed (organization_withdrew_partner) unsent, and still delivers the other organization', async () => {
    const { withdrawn, kept } = await givenPartnerOfTwo();
    // Recorded while no dispatcher runs: pending when the organization withdraws.
    const lost = await recordEventFor(bed.webhooks, withdrawn);
    const delivered = await recordEventFor(bed.webhooks, kept);
    await withdraw(withdrawn);
    startDispatching();
    await eventually(async () => receiver.requests.some((r) => r.eventId === delivered.event_id), Boolean);
    const ended = await eventually(() => deliveryOf(lost.event_id), (d) => d.status !== 'pending');
    expect(ended).toEqual({ status: 'failed', ended_because: 'organization_withdrew_partner', attempts_made: 0 });
    expect(receiver.requests.map((r) => r.eventId)).not.toContain(lost.event_id);

    // An operator's replay of it is ended the same way.
    const replayed = await replayWebhookEvents(bed.webhooks, { eventIds: [lost.event_id], requestedBy: 'operator', dryRun: false });
    expect(replayed.matched).toBe(1);
    expect(await eventually(() => deliveryOf(lost.event_id, 'replay'), (d) => d.status !== 'pending')).toMatchObject({ status: 'failed', ended_because: 'organization_withdrew_partner' });
    expect(receiver.requests.map((r) => r.eventId)).not.toContain(lost.event_id);
  });
});

describe("the partner's credentials, for an organization that withdrew the partner", () => {
  it('refuse its event and a replay (403), list and recover none of its events, and the feed refuses its tokens', async () => {
    startDispatching();
    const { withdrawn, kept } = await givenPartnerOfTwo();
    const gone = await recordEventFor(bed.webhooks, withdrawn);
    const stays = await recordEventFor(bed.webhooks, kept);
    for (const event of [gone, stays]) await eventually(() => deliveryOf(event.event_id), (d) => d.status === 'delivered');
    // Both failed, as if the receiver had been down: what recover would take.
    await bed.t.deps.database.updateTable('webhook_deliveries').set({ status: 'failed' }).where('event_id', 'in', [gone.event_id, stays.event_id]).execute();
    const token = await requestToken(bed.t, withdrawn, ['read:patient_prescription']);
    const feedUrl = `/v1/organizations/${withdrawn.organizationId}/events`;
    expect((await bed.t.app.inject({ method: 'GET', url: feedUrl, headers: bearer(token, withdrawn) })).statusCode).toBe(200);
    expect((await partnerCall(withdrawn, 'GET', `/v1/partner/webhook-events/${gone.event_id}`)).statusCode).toBe(200);

    await withdraw(withdrawn);

    const detail = await partnerCall(withdrawn, 'GET', `/v1/partner/webhook-events/${gone.event_id}`);
    expect(detail.statusCode, detail.body).toBe(403);
    expect(detail.json().error.detail).toContain('no longer enables partner');
    const replay = await partnerCall(withdrawn, 'POST', `/v1/partner/webhook-events/${gone.event_id}/replay`);
    expect(replay.statusCode, replay.body).toBe(403);
    const all = await partnerCall(withdrawn, 'GET', '/v1/partner/webhook-events');
    expect(all.json().data.events.map((e: { event_id: string }) => e.event_id)).toEqual([stays.event_id]);
    const named = await partnerCall(withdrawn, 'GET', `/v1/partner/webhook-events?organization_id=${withdrawn.organizationId}`);
    expect(named.json().data.events).toEqual([]);
    const recover = await partnerCall(withdrawn, 'POST', '/v1/partner/webhook-events/recover', { since: '2020-01-01T00:00:00Z' });
    expect(recover.statusCode, recover.body).toBe(200);
    expect(recover.json().data).toMatchObject({ count: 1, event_ids: [stays.event_id] });
    const replays = await bed.t.deps.database.selectFrom('webhook_deliveries').select('event_id').where('reason', '=', 'replay').where('partner_id', '=', withdrawn.partnerId).execute();
    expect(replays.map((r) => r.event_id)).toEqual([stays.event_id]);
    expect((await bed.t.app.inject({ method: 'GET', url: feedUrl, headers: bearer(token, withdrawn) })).statusCode).toBe(401);

    // The kept organization's event is still the partner's to read and replay.
    expect((await partnerCall(kept, 'GET', `/v1/partner/webhook-events/${stays.event_id}`)).statusCode).toBe(200);
    expect((await partnerCall(kept, 'POST', `/v1/partner/webhook-events/${stays.event_id}/replay`)).statusCode).toBe(200);
  });

  it("another partner's credentials reach neither organization's events (404)", async () => {
    const { withdrawn } = await givenPartnerOfTwo();
    const event = await recordEventFor(bed.webhooks, withdrawn);
    const stranger = await givenIntegration(bed.t);
    expect((await partnerCall(stranger, 'GET', `/v1/partner/webhook-events/${event.event_id}`)).statusCode).toBe(404);
    expect((await partnerCall(stranger, 'POST', `/v1/partner/webhook-events/${event.event_id}/replay`)).statusCode).toBe(404);
    expect((await partnerCall(stranger, 'POST', '/v1/partner/webhook-events/not-an-event/replay')).statusCode).toBe(404);
  });
});
