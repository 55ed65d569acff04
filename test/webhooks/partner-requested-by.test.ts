// Partners never see operator user names (issue 38 item 5). The attack: an operator's replay
// (`erx webhooks replay`) stored `requested_by: operator:<OS user name>`, and the partner's
// event detail showed it. Now the partner reads `operator`; its own replays still name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayWebhookEvents } from '../../src/webhooks/index.ts';
import { createWebhooksBed, givenEndpoint, recordEventFor, type WebhooksBed } from './webhooks-given.ts';

let bed: WebhooksBed;
beforeAll(async () => {
  bed = await createWebhooksBed();
});
afterAll(() => bed?.close());

describe("the partner's event detail", () => {
  it("shows an operator's replay as requested by `operator`, never the operator's user name", async () => {
    const g = await givenEndpoint(bed, 'http://127.0.0.1:9/hooks');
    const event = await recordEventFor(bed.webhooks, g);
    await replayWebhookEvents(bed.webhooks, { eventIds: [event.event_id], requestedBy: 'operator:alice.secret-admin', dryRun: false });
    const headers = { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret };
    const own = await bed.t.app.inject({ method: 'POST', url: `/v1/partner/webhook-events/${event.event_id}/replay`, headers });
    expect(own.statusCode, own.body).toBeLessThan(300);
    const detail = await bed.t.app.inject({ method: 'GET', url: `/v1/partner/webhook-events/${event.event_id}`, headers });
    expect(detail.body).not.toContain('alice');
    const requestedBy = detail.json().data.deliveries.map((d: { requested_by: string | null }) => d.requested_by);
    expect(requestedBy).toHaveLength(3);
    expect(requestedBy).toEqual(expect.arrayContaining([null, 'operator', `partner:${g.partnerId}`]));
  });
});
