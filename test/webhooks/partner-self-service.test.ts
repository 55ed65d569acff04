// The partner self-service API (/v1/partner/), following docs/partners/self-service.md:
// a partner, with only its own credentials, registers an endpoint (a real receiver on
// 127.0.0.1, allowed in sandbox mode), verifies a delivery with `standardwebhooks` and with
// stripe-node, rotates its secret, finds the failed events and recovers them, and reconciles
// through the organization's event feed from the cursor it kept. Then each route's
// security cases: no or wrong credentials (401 in the error envelope), another partner's event
// (404), bad input; and the event-type catalogue, the OpenAPI `webhooks` and the payloads.
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESCRIPTION_EVENT_TYPES } from '../../src/prescriptions/prescription-lifecycle.ts';
import { bearer, givenIntegration, requestToken, type GivenIntegration } from '../given.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, prescriptionEvent, recordEventFor, recordEvents, type WebhooksBed } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');
let bed: WebhooksBed;
let receiver: Receiver;
/** Events whose id is here get a 503 from the receiver (until removed). */
const refusing = new Set<string>();

beforeAll(async () => {
  bed = await createWebhooksBed();
  receiver = await startReceiver((request) => (refusing.has(request.eventId ?? '') ? { status: 503, body: 'receiver down' } : { status: 200, body: 'ok' }));
  bed.startDispatcher();
});
afterAll(async () => {
  await bed?.close();
  await receiver?.close();
});

const as = (g: Pick<GivenIntegration, 'partnerId' | 'partnerSecret'>) => ({ 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret });
async function partnerCall(g: Pick<GivenIntegration, 'partnerId' | 'partnerSecret'> | Record<string, string>, method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) {
  const headers = 'partnerId' in g ? as(g as GivenIntegration) : (g as Record<string, string>);
  const response = await bed.t.app.inject({ method, url, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
  return { status: response.statusCode, body: response.json() as { success: boolean; data: any; error?: { detail: string } } };
}

async function nextDelivery(g: GivenIntegration) {
  const before = receiver.requests.length;
  const event = await recordEventFor(bed.webhooks, g);
  const requests = await receiver.waitForRequests(before + 1);
  return { event, request: requests.slice(before).find((r) => r.eventId === event.event_id)! };
}

/**
 * Every event the organization's feed lists after `after` (following `next` until has_more is
 * false), once at least `count` are listable: on PostgreSQL an event is listed only once every
 * older transaction in the cluster has ended, so a busy cluster may hold it back briefly.
 */
async function readFeed(g: GivenIntegration, token: string, after: string | null, count: number) {
  const read = async () => {
    const events: Array<{ event_id: string }> = [];
    let next = after;
    for (;;) {
      const url = `/v1/organizations/${g.organizationId}/events?limit=2${next ? `&after=${next}` : ''}`;
      const response = await bed.t.app.inject({ method: 'GET', url, headers: bearer(token, g) });
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json().data as { events: Array<{ event_id: string }>; next: string | null; has_more: boolean };
      events.push(...page.events);
      next = page.next;
      if (!page.has_more) return { events, next };
    }
  };
  return eventually(read, (feed) => feed.events.length >= count);
}

describe('a partner helps itself (the walk-through of docs/partners/self-service.md)', () => {
  it('registers, verifies with standardwebhooks and stripe-node, rotates, finds the failed events, recovers them and reconciles through the feed', async () => {
    const g = await givenIntegration(bed.t);
    await bed.t.deps.database.updateTable('organization_partners').set({ validated_at: new Date().toISOString() }).where('partner_id', '=', g.partnerId).execute();

    const set = await partnerCall(g, 'PUT', '/v1/partner/webhook-endpoint', { url: receiver.url });
    expect(set.status).toBe(200);
    const secret = set.body.data.webhook_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint');
    expect(shown.body.data).toMatchObject({ webhook_url: receiver.url, enabled: true, standard_webhooks: true });
    expect(JSON.stringify(shown.body)).not.toContain(secret);
    const ping = await partnerCall(g, 'POST', '/v1/partner/webhook-endpoint/ping');
    expect(ping.body.data).toMatchObject({ ok: true, status_code: 200 });

    const { event, request } = await nextDelivery(g);
    expect(request.headers['webhook-id']).toBe(event.event_id);
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual(event);
    expect(stripe.webhooks.constructEvent(request.body, String(request.headers['x-webhook-signature']), secret)).toEqual(event);

    // The API's clock is the test's manual one; the dispatcher's is the system's: align them for the overlap.
    bed.t.clock.advanceSeconds((Date.now() - bed.t.clock.now().getTime()) / 1000);
    const rotated = await partnerCall(g, 'POST', '/v1/partner/webhook-endpoint/rotate-secret', { overlap_hours: 1 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.webhook_secret as string;
    expect(fresh).not.toBe(secret);
    const during = await nextDelivery(g);
    expect(String(during.request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const key of [fresh, secret]) {
      expect(new Webhook(key).verify(during.request.body, during.request.headers as Record<string, string>)).toEqual(during.event);
      expect(stripe.webhooks.constructEvent(during.request.body, String(during.request.headers['x-webhook-signature']), key)).toEqual(during.event);
    }

    // The partner reads its organization's feed once and keeps the cursor (data.next).
    const token = await requestToken(bed.t, g, ['read:patient_prescription']);
    const feed = await readFeed(g, token, null, 2);
    expect(feed.events).toEqual([event, during.event]);

    // The receiver is down for two events: three attempts each, then failed.
    const since = new Date(Date.now() - 1000).toISOString();
    // Refused before they are written: the dispatcher may send an event the moment it commits.
    const lost = [prescriptionEvent(g), prescriptionEvent(g, 'prescription.ceased')];
    const lostIds = lost.map((e) => e.event_id);
    for (const id of lostIds) refusing.add(id);
    // One change each, so the feed's commit order is theirs (one change's events come in id order).
    for (const event of lost) await recordEvents(bed.webhooks, [event]);
    const failed = await eventually(
      () => partnerCall(g, 'GET', '/v1/partner/webhook-events?status=failed'),
      (r) => r.body.data.events.length === 2,
      20_000,
    );
    expect(failed.body.data.events.map((e: { event_id: string }) => e.event_id).sort()).toEqual([...lostIds].sort());
    const detail = await partnerCall(g, 'GET', `/v1/partner/webhook-events/${lostIds[0]}`);
    const attempts = detail.body.data.deliveries[0].attempts;
    expect(attempts).toHaveLength(3);
    // A sandbox on loopback delivers unguarded: the answer is the operator's to read, not the partner's (issue 38 item 6).
    expect(attempts[0]).toMatchObject({ attempt_number: 1, status_code: 503, response_body: null });
    expect(typeof attempts[0].duration_ms).toBe('number');

    for (const id of lostIds) refusing.delete(id);
    bed.t.clock.advanceSeconds((Date.now() - bed.t.clock.now().getTime()) / 1000);
    const dry = await partnerCall(g, 'POST', '/v1/partner/webhook-events/recover', { since, dry_run: true });
    expect(dry.body.data).toMatchObject({ dry_run: true, count: 2 });
    expect([...dry.body.data.event_ids].sort()).toEqual([...lostIds].sort());
    const before = receiver.requests.length;
    const recovered = await partnerCall(g, 'POST', '/v1/partner/webhook-events/recover', { since });
    expect(recovered.body.data).toMatchObject({ dry_run: false, count: 2 });
    const again = (await receiver.waitForRequests(before + 2)).slice(before);
    for (const [index, id] of lostIds.entries()) {
      const delivery = again.find((r) => r.eventId === id)!;
      expect(delivery.headers['webhook-id']).toBe(id);
      expect(new Webhook(fresh).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(lost[index]);
    }
    await eventually(() => partnerCall(g, 'GET', '/v1/partner/webhook-events?status=failed'), (r) => r.body.data.events.length === 0);

    // Reconciling: the feed after the kept cursor lists exactly the events the receiver missed,
    // in commit order, each the payload its refused deliveries carried.
    const missed = await readFeed(g, token, feed.next, 2);
    expect(missed.events).toEqual(lost);
    const refusedBodies = lostIds.map((id) => JSON.parse(receiver.requests.find((r) => r.eventId === id)!.body));
    expect(missed.events).toEqual(refusedBodies);
  }, 40_000);
});

describe('partner credentials', () => {
  const routes: Array<['GET' | 'PUT' | 'POST', string]> = [
    ['GET', '/v1/partner/webhook-endpoint'],
    ['PUT', '/v1/partner/webhook-endpoint'],
    ['POST', '/v1/partner/webhook-endpoint/rotate-secret'],
    ['POST', '/v1/partner/webhook-endpoint/ping'],
    ['GET', '/v1/partner/webhook-events'],
    ['GET', '/v1/partner/webhook-events/evt_00000000000000000000000000000000'],
    ['POST', '/v1/partner/webhook-events/evt_00000000000000000000000000000000/replay'],
    ['POST', '/v1/partner/webhook-events/recover'],
    ['GET', '/v1/partner/event-types'],
  ];

  it('missing or wrong: 401 in the error envelope on every route', async () => {
    const g = await givenIntegration(bed.t);
    for (const [method, url] of routes) {
      for (const headers of [{} as Record<string, string>, { 'x-partner-id': g.partnerId }, { ...as(g), 'x-partner-secret': 'wrong' }, { ...as(g), 'x-partner-id': 'nobody' }]) {
        const r = await partnerCall(headers, method, url, method === 'GET' ? undefined : {});
        expect(r.status, `${method} ${url} ${JSON.stringify(Object.keys(headers))}`).toBe(401);
        expect(r.body).toMatchObject({ success: false, statusCode: 401, error: { type: expect.any(String), detail: expect.any(String) } });
      }
    }
  });

  it("organization credentials are not a partner's: a bearer token alone is refused", async () => {
    const g = await givenIntegration(bed.t);
    const r = await partnerCall({ 'x-organization-id': g.organizationId, 'x-organization-secret': g.organizationSecret }, 'GET', '/v1/partner/webhook-endpoint');
    expect(r.status).toBe(401);
  });
});

describe('another partner and bad input', () => {
  it("another partner's event is not found (404) to read or replay, and absent from its list", async () => {
    const mine = await givenIntegration(bed.t);
    const other = await givenIntegration(bed.t);
    const event = await recordEventFor(bed.webhooks, other);
    for (const [method, url] of [['GET', `/v1/partner/webhook-events/${event.event_id}`], ['POST', `/v1/partner/webhook-events/${event.event_id}/replay`]] as const) {
      const r = await partnerCall(mine, method, url);
      expect(r.status).toBe(404);
      expect(r.body.error!.detail).toBe(`event ${event.event_id} not found`);
    }
    const list = await partnerCall(mine, 'GET', '/v1/partner/webhook-events');
    expect(list.body.data.events).toEqual([]);
    expect((await partnerCall(other, 'GET', `/v1/partner/webhook-events/${event.event_id}`)).status).toBe(200);
    const recover = await partnerCall(mine, 'POST', '/v1/partner/webhook-events/recover', { since: '2020-01-01T00:00:00Z', dry_run: true });
    expect(recover.body.data.count).toBe(0);
  });

  it('refuses a bad URL, overlap, filter, cursor or window, changing nothing', async () => {
    const g = await givenIntegration(bed.t);
    const bad: Array<['PUT' | 'POST' | 'GET', string, unknown?]> = [
      ['PUT', '/v1/partner/webhook-endpoint', { url: 'ftp://example.test/hook' }],
      ['PUT', '/v1/partner/webhook-endpoint', {}],
      ['POST', '/v1/partner/webhook-endpoint/rotate-secret', { overlap_hours: 1000 }],
      ['POST', '/v1/partner/webhook-endpoint/rotate-secret', { overlap_hours: 1 }], // no endpoint yet
      ['GET', '/v1/partner/webhook-events?status=lost'],
      ['GET', '/v1/partner/webhook-events?limit=101'],
      ['GET', '/v1/partner/webhook-events?cursor=bm9wZQ'],
      ['POST', '/v1/partner/webhook-events/recover', {}],
      ['POST', '/v1/partner/webhook-events/recover', { since: '2026-11-24T00:00:00Z', until: '2026-11-23T00:00:00Z' }],
    ];
    for (const [method, url, body] of bad) {
      const r = await partnerCall(g, method, url, body);
      expect([400, 422], `${method} ${url} ${JSON.stringify(body)}`).toContain(r.status);
      expect(r.body.success).toBe(false);
    }
    expect((await partnerCall(g, 'GET', '/v1/partner/webhook-endpoint')).body.data.webhook_url).toBeNull();
  });

  it('pages with a cursor, filtered by organization and type', async () => {
    const g = await givenIntegration(bed.t);
    const second = await givenIntegration(bed.t, { partner: { partner_id: g.partnerId, partner_secret: g.partnerSecret } });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await recordEventFor(bed.webhooks, g, i % 2 ? 'prescription.ceased' : 'prescription.created')).event_id);
    await recordEventFor(bed.webhooks, second);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { events: Array<{ event_id: string }>; next_cursor: string | null } } } = await partnerCall(
        g,
        'GET',
        `/v1/partner/webhook-events?organization_id=${g.organizationId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.body.data, JSON.stringify(page.body)).toBeDefined();
      seen.push(...page.body.data.events.map((e) => e.event_id));
      cursor = page.body.data.next_cursor;
    } while (cursor);
    // Every event of that organization once, none of the other (events of one millisecond may come in either order).
    expect(seen).toHaveLength(5);
    expect([...seen].sort()).toEqual([...ids].sort());
    const ceased = await partnerCall(g, 'GET', '/v1/partner/webhook-events?event_type=prescription.ceased');
    expect(ceased.body.data.events.map((e: { event_id: string }) => e.event_id).sort()).toEqual([ids[1], ids[3]].sort());
  });
});

describe('the event-type catalogue', () => {
  it('lists every type with its JSON Schema, the same as the OpenAPI webhooks, and every payload sent validates', async () => {
    const g = await givenIntegration(bed.t);
    const types = (await partnerCall(g, 'GET', '/v1/partner/event-types')).body.data as Array<{ event_type: string; schema: object }>;
    expect(types.map((t) => t.event_type)).toEqual(['prescription.created', 'prescription.ceased', 'prescription.cancelled', 'prescription.reissued', 'prescription.dispensed', 'webhook.ping']);
    expect(types.map((t) => t.event_type)).toEqual([...PRESCRIPTION_EVENT_TYPES, 'prescription.dispensed', 'webhook.ping']);
    const openapi = (await bed.t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }> };
    const ajv = new Ajv({ strict: false });
    (((formats as unknown as { default?: unknown }).default ?? formats) as (a: Ajv) => void)(ajv);
    for (const { event_type, schema } of types) {
      expect(openapi.webhooks[event_type]!.post.requestBody.content['application/json'].schema).toEqual(schema);
    }
    await bed.t.deps.database.updateTable('organization_partners').set({ validated_at: new Date().toISOString() }).where('partner_id', '=', g.partnerId).execute();
    expect((await partnerCall(g, 'PUT', '/v1/partner/webhook-endpoint', { url: receiver.url })).status).toBe(200);
    for (const { event_type, schema } of types.filter((t) => t.event_type !== 'webhook.ping')) {
      const before = receiver.requests.length;
      const event = await recordEventFor(bed.webhooks, g, event_type);
      const request = (await receiver.waitForRequests(before + 1)).slice(before).find((r) => r.eventId === event.event_id)!;
      const validate = ajv.compile(schema);
      expect(validate(JSON.parse(request.body)), JSON.stringify(validate.errors)).toBe(true);
    }
    const before = receiver.requests.length;
    const ping = await partnerCall(g, 'POST', '/v1/partner/webhook-endpoint/ping');
    expect(ping.body.data).toMatchObject({ ok: true, status_code: 200 });
    const [pinged] = (await receiver.waitForRequests(before + 1)).slice(before);
    expect(ajv.compile(types.find((t) => t.event_type === 'webhook.ping')!.schema)(JSON.parse(pinged!.body))).toBe(true);
  }, 30_000);
});
