// A partner's change of its webhook URL waits and is announced (issue 38 item 5). The attack,
// as it worked before: with the partner secret alone, PUT /v1/partner/webhook-endpoint sent
// every organization's next event to the new URL at once, and the URL being left heard
// nothing. Now the previous URL gets a signed `webhook.endpoint_changed` (Standard Webhooks
// headers, the partner's secret) naming the new URL, deliveries keep going to it for
// ERX_ENDPOINT_CHANGE_DELAY_MINUTES (the partner's GET shows the waiting change), and only
// then, or when an operator confirms it (`erx webhooks confirm-endpoint`), follow the change.
// The notice is not an event type partners subscribe to.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmWebhookEndpoint, SUBSCRIBABLE_EVENT_TYPES, WebhooksError, type WebhooksContext } from '../../src/webhooks/index.ts';
import { changePartnerEndpoint } from '../../src/webhooks/webhook-endpoint-change.ts';
import { ENDPOINT_CHANGED_EVENT_TYPE } from '../../src/webhooks/webhook-events.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type GivenEndpoint, type WebhooksBed } from './webhooks-given.ts';

let bed: WebhooksBed;
/** The app's own webhooks context: its clock is the test's, which the tests move. */
let webhooks: WebhooksContext;
let before: Receiver;
let after: Receiver;
beforeAll(async () => {
  bed = await createWebhooksBed({ env: { ERX_ENDPOINT_CHANGE_DELAY_MINUTES: '60' } });
  webhooks = bed.t.features.webhooks;
  before = await startReceiver();
  after = await startReceiver();
  bed.startDispatcher(webhooks);
});
afterAll(async () => {
  await bed?.close();
  await before?.close();
  await after?.close();
});

function partnerCall(g: Pick<GivenIntegration, 'partnerId' | 'partnerSecret'>, method: 'GET' | 'PUT', url: string, body?: unknown) {
  const headers = { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return bed.t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}

const changeUrl = (g: GivenEndpoint, url: string) => partnerCall(g, 'PUT', '/v1/partner/webhook-endpoint', { url });

/** Where the partner's next event is delivered: the receiver it arrived at. */
async function nextEventArrivesAt(g: GivenEndpoint): Promise<Receiver> {
  const event = await recordEventFor(webhooks, g);
  return eventually(
    async () => [before, after].find((r) => r.requests.some((request) => request.eventId === event.event_id)),
    (receiver) => receiver !== undefined,
  ) as Promise<Receiver>;
}

describe('a partner changing its webhook URL', () => {
  it('tells the previous URL at once, signed; deliveries follow the change only after the delay', async () => {
    const g = await givenEndpoint(bed, before.url, webhooks);
    const change = await changeUrl(g, after.url);
    expect(change.statusCode, change.body).toBe(200);
    const takesEffectAt = new Date(bed.t.clock.now().getTime() + 60 * 60_000).toISOString();
    expect(change.json().data).toMatchObject({ webhook_url: after.url, previous_url: before.url, takes_effect_at: takesEffectAt, previous_url_notified: true });

    const notice = before.requests.find((r) => r.body.includes(ENDPOINT_CHANGED_EVENT_TYPE))!;
    expect(notice).toBeDefined();
    expect(notice.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Verified as a receiver verifies a delivery, with the partner's secret (the timestamp is the test clock's, so checked by hand).
    const [id, timestamp] = [notice.headers['webhook-id'] as string, notice.headers['webhook-timestamp'] as string];
    const expected = createHmac('sha256', Buffer.from(g.secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${notice.body}`).digest('base64');
    expect((notice.headers['webhook-signature'] as string).split(' ')).toContain(`v1,${expected}`);
    expect(Number(timestamp)).toBe(Math.floor(bed.t.clock.now().getTime() / 1000));
    const verified = JSON.parse(notice.body) as { event_type: string; partner_id: string; data: Record<string, string> };
    expect(verified).toMatchObject({ event_type: ENDPOINT_CHANGED_EVENT_TYPE, partner_id: g.partnerId, data: { previous_url: before.url, new_url: after.url, takes_effect_at: takesEffectAt } });
    expect(after.requests).toHaveLength(0);

    const shown = (await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint')).json().data;
    expect(shown).toMatchObject({ webhook_url: before.url, pending_change: { url: after.url, takes_effect_at: takesEffectAt } });
    expect(await nextEventArrivesAt(g)).toBe(before);

    bed.t.clock.advanceSeconds(60 * 60);
    expect((await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint')).json().data).toMatchObject({ webhook_url: after.url, pending_change: null });
    expect(await nextEventArrivesAt(g)).toBe(after);
  });

  it('takes effect at once when an operator confirms it, and asking for the URL in use drops a waiting change', async () => {
    const g = await givenEndpoint(bed, before.url, webhooks);
    expect((await changeUrl(g, 'http://127.0.0.1:9/elsewhere')).statusCode).toBe(200);
    const back = await changeUrl(g, before.url);
    expect(back.json().data).toMatchObject({ webhook_url: before.url, previous_url: before.url, previous_url_notified: null });
    expect((await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint')).json().data.pending_change).toBeNull();
    await expect(confirmWebhookEndpoint(webhooks, g.partnerId)).rejects.toThrow(/no change of webhook URL waiting/);

    expect((await changeUrl(g, after.url)).statusCode).toBe(200);
    const confirmed = await confirmWebhookEndpoint(webhooks, g.partnerId);
    expect(confirmed).toMatchObject({ partner_id: g.partnerId, webhook_url: after.url, previous_url: before.url });
    expect((await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint')).json().data).toMatchObject({ webhook_url: after.url, pending_change: null });
    expect(await nextEventArrivesAt(g)).toBe(after);
    const entries = await bed.t.deps.database.selectFrom('audit_entries').select('action').where('action', '=', 'admin.webhook_endpoint_confirm').execute();
    expect(entries.length).toBeGreaterThan(0);
  });

  it('with no delay (the sandbox default) changes at once, still telling the previous URL', async () => {
    const g = await givenEndpoint(bed, before.url, webhooks);
    const noDelay = { ...webhooks, settings: { ...webhooks.settings, endpointChangeDelayMs: 0 } };
    const noticesBefore = before.requests.filter((r) => r.body.includes(ENDPOINT_CHANGED_EVENT_TYPE)).length;
    const set = await changePartnerEndpoint(noDelay, g.partnerId, after.url);
    expect(set).toMatchObject({ webhook_url: after.url, takes_effect_at: bed.t.clock.now().toISOString(), previous_url_notified: true });
    expect(before.requests.filter((r) => r.body.includes(ENDPOINT_CHANGED_EVENT_TYPE))).toHaveLength(noticesBefore + 1);
    expect(await nextEventArrivesAt(g)).toBe(after);
  });

  it("is refused for bad input and reaches only the caller's own endpoint; the operator's confirm names a real partner", async () => {
    const g = await givenEndpoint(bed, before.url, webhooks);
    const other = await givenEndpoint(bed, before.url, webhooks);
    expect((await changeUrl(g, 'not a url')).statusCode).toBe(422);
    expect((await changeUrl(g, 'ftp://example.test/hooks')).statusCode).toBe(422);
    expect((await partnerCall({ partnerId: g.partnerId, partnerSecret: other.partnerSecret }, 'PUT', '/v1/partner/webhook-endpoint', { url: after.url })).statusCode).toBe(401);
    expect((await changeUrl(other, after.url)).statusCode).toBe(200);
    expect((await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint')).json().data).toMatchObject({ webhook_url: before.url, pending_change: null });
    await expect(confirmWebhookEndpoint(webhooks, 'no-such-partner')).rejects.toThrow(WebhooksError);
  });
});

describe('webhook.endpoint_changed', () => {
  it('is not an event type partners subscribe to or find in the catalogue', async () => {
    const g = await givenIntegration(bed.t);
    expect(SUBSCRIBABLE_EVENT_TYPES).not.toContain(ENDPOINT_CHANGED_EVENT_TYPE);
    const catalogue = await partnerCall(g, 'GET', '/v1/partner/event-types');
    expect(catalogue.json().data.map((t: { event_type: string }) => t.event_type)).not.toContain(ENDPOINT_CHANGED_EVENT_TYPE);
    const subscribe = await partnerCall(g, 'PUT', '/v1/partner/webhook-endpoint/event-types', { event_types: [ENDPOINT_CHANGED_EVENT_TYPE] });
    expect(subscribe.statusCode).toBe(422);
  });
});
