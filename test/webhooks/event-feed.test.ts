// GET /v1/organizations/{organization_id}/events: the calling partner's events of the
// organization, in commit order, a page at a time, with exactly the envelopes its webhooks
// carry (no endpoint is set here: every event is one the receiver missed), never another
// partner's; with the route's security cases, its 400s and its audit entry. On PostgreSQL: a
// transaction that started first and commits last does not let the feed skip its event.
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/index.ts';
import { enablePartnerForOrganization } from '../../src/onboarding/index.ts';
import { newEventId } from '../../src/webhooks/index.ts';
import { type WebhookEventEnvelope } from '../../src/webhooks/webhook-events.ts';
import type { DatabaseHandle } from '../../src/platform/db/database.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { bearer, givenPartner, requestToken, useTestApp } from '../given.ts';
import { eventually } from './webhooks-given.ts';
import { type Clinic, givenClinic, givenPatient, givenPrescription, outboxEvents, send } from '../prescriptions/prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));

const feedPath = (organizationId: string, query = '') => `/v1/organizations/${organizationId}/events${query}`;

async function readFeed(headers: Record<string, string>, organizationId: string, query = '') {
  const response = await send(t, 'GET', feedPath(organizationId, query), headers);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { events: WebhookEventEnvelope[]; next: string | null; has_more: boolean };
}

/** Every page from the start (or `after`), `limit` at a time. */
async function readAll(headers: Record<string, string>, organizationId: string, limit: number, after?: string) {
  const events: WebhookEventEnvelope[] = [];
  let cursor = after;
  for (let pages = 0; pages < 50; pages++) {
    const page = await readFeed(headers, organizationId, `?limit=${limit}${cursor ? `&after=${cursor}` : ''}`);
    events.push(...page.events);
    cursor = page.next ?? undefined;
    if (!page.has_more) return { events, next: cursor };
  }
  throw new Error('the feed never ended');
}

/** The raw bodies stored for the organization's events of one partner (what each delivery sends). */
async function storedBodies(organizationId: string, partnerId: string) {
  return (await outboxEvents(t, organizationId)).filter((event) => event.partner_id === partnerId).map((event) => event.body);
}

/**
 * Waits until the feed lists every stored event of the partner. On PostgreSQL the feed holds an
 * event back while any transaction older than its commit still runs anywhere in the cluster
 * (other test files' included), so a read right after a commit may not list it yet.
 */
async function feedSettled(headers: Record<string, string>, organizationId: string, partnerId: string): Promise<void> {
  const stored = (await storedBodies(organizationId, partnerId)).length;
  await eventually(() => readAll(headers, organizationId, 100), (all) => all.events.length === stored);
}

async function aClinicWithEvents(count: number): Promise<Clinic> {
  const clinic = await givenClinic(t);
  for (let i = 0; i < count; i++) await givenPrescription(t, clinic);
  return clinic;
}

describe('the event feed', () => {
  it('lists every event of the organization in order, a page at a time, each exactly as stored for delivery', async () => {
    const clinic = await aClinicWithEvents(3);
    const bodies = await storedBodies(clinic.g.organizationId, clinic.g.partnerId);
    expect(bodies).toHaveLength(3);
    await feedSettled(clinic.headers, clinic.g.organizationId, clinic.g.partnerId);
    const first = await readFeed(clinic.headers, clinic.g.organizationId, '?limit=2');
    expect(first.events).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await readFeed(clinic.headers, clinic.g.organizationId, `?limit=2&after=${first.next}`);
    expect(second.events).toHaveLength(1);
    expect(second.has_more).toBe(false);
    // The very bytes: the feed's JSON of each event is the stored envelope the receiver gets.
    expect([...first.events, ...second.events].map((event) => JSON.stringify(event))).toEqual(bodies);
    // Nothing new: the same cursor comes back; a new event then follows it.
    const idle = await readFeed(clinic.headers, clinic.g.organizationId, `?after=${second.next}`);
    expect(idle).toEqual({ events: [], next: second.next, has_more: false });
    await givenPrescription(t, clinic);
    await feedSettled(clinic.headers, clinic.g.organizationId, clinic.g.partnerId);
    const later = await readFeed(clinic.headers, clinic.g.organizationId, `?after=${second.next}`);
    expect(later.events.map((event) => JSON.stringify(event))).toEqual((await storedBodies(clinic.g.organizationId, clinic.g.partnerId)).slice(3));
  });

  it('starts with next null when nothing was ever listed, and the default page is 50', async () => {
    const clinic = await givenClinic(t);
    expect(await readFeed(clinic.headers, clinic.g.organizationId)).toEqual({ events: [], next: null, has_more: false });
    await seedEvents(t.deps.database, clinic, 51);
    await feedSettled(clinic.headers, clinic.g.organizationId, clinic.g.partnerId);
    const page = await readFeed(clinic.headers, clinic.g.organizationId);
    expect(page.events).toHaveLength(50);
    expect(page.has_more).toBe(true);
    const hundred = await readFeed(clinic.headers, clinic.g.organizationId, '?limit=100');
    expect(hundred.events).toHaveLength(51);
  });

  it("lists a partner's own events only, never those of another partner enabled for the same organization", async () => {
    const clinic = await aClinicWithEvents(2);
    const partnerB = await givenPartner(t);
    await enablePartnerForOrganization(t.features.onboarding, { organizationId: clinic.g.organizationId, partnerId: partnerB.partner_id });
    const b = { ...clinic.g, partnerId: partnerB.partner_id, partnerSecret: partnerB.partner_secret };
    const bHeaders = bearer(await requestToken(t, b, [...SCOPES]), b);
    expect((await send(t, 'GET', `/v1/organizations/${clinic.g.organizationId}/validate`, bHeaders)).statusCode).toBe(200);
    const { patientId } = await givenPatient(t, { g: b, headers: bHeaders });
    await givenPrescription(t, clinic, {}, { patientId });
    await givenPrescription(t, clinic, {}, { patientId });
    const aBodies = await storedBodies(clinic.g.organizationId, clinic.g.partnerId);
    const bBodies = await storedBodies(clinic.g.organizationId, b.partnerId);
    // A's own two, and the two of B's patient A prescribed for (the acting partner hears of its changes too).
    expect(aBodies).toHaveLength(4);
    expect(bBodies).toHaveLength(2);
    await feedSettled(clinic.headers, clinic.g.organizationId, clinic.g.partnerId);
    await feedSettled(bHeaders, clinic.g.organizationId, b.partnerId);
    const aFeed = await readAll(clinic.headers, clinic.g.organizationId, 1);
    const bFeed = await readAll(bHeaders, clinic.g.organizationId, 1);
    expect(aFeed.events.map((event) => JSON.stringify(event))).toEqual(aBodies);
    expect(bFeed.events.map((event) => JSON.stringify(event))).toEqual(bBodies);
    expect(aFeed.events.every((event) => event.partner_id === clinic.g.partnerId)).toBe(true);
    // B's cursor gets A nothing of B's.
    expect((await readFeed(clinic.headers, clinic.g.organizationId, `?after=${bFeed.next}`)).events.every((event) => event.partner_id === clinic.g.partnerId)).toBe(true);
  });

  it('notes one audit entry for each read, with how many events it listed', async () => {
    const clinic = await aClinicWithEvents(2);
    await feedSettled(clinic.headers, clinic.g.organizationId, clinic.g.partnerId);
    const seq = await lastAuditSeq(t);
    await readFeed(clinic.headers, clinic.g.organizationId);
    const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'webhook.events_read');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ organization_id: clinic.g.organizationId, partner_id: clinic.g.partnerId, detail: { count: 2 } });
  });

  it("names the patients of the events it returned: each once in the detail, the patient column when there is one", async () => {
    const clinic = await aClinicWithEvents(2);
    const other = await givenPatient(t, clinic);
    await givenPrescription(t, clinic, {}, { patientId: other.patientId });
    await feedSettled(clinic.headers, clinic.g.organizationId, clinic.g.partnerId);
    const readEntry = async (query: string) => {
      const seq = await lastAuditSeq(t);
      const page = await readFeed(clinic.headers, clinic.g.organizationId, query);
      const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'webhook.events_read');
      expect(entries).toHaveLength(1);
      return { page, entry: entries[0]! };
    };
    const all = await readEntry('');
    expect(all.entry.detail).toEqual({ count: 3, patientIds: [clinic.patientId, other.patientId] });
    expect(all.entry.patient_id).toBeNull();
    const first = await readEntry('?limit=1');
    expect(first.entry).toMatchObject({ patient_id: clinic.patientId, detail: { count: 1, patientIds: [clinic.patientId] } });
    // Past the last event: nothing shown, no patient named.
    const none = await readEntry(`?after=${all.page.next}`);
    expect(none.entry).toMatchObject({ patient_id: null, detail: { count: 0 } });
  });
});

describe('who may read the feed', () => {
  it('answers 401 without a token, with a wrong token, and without the organization secret', async () => {
    expect((await send(t, 'GET', feedPath(c.g.organizationId), {})).statusCode).toBe(401);
    expect((await send(t, 'GET', feedPath(c.g.organizationId), { ...c.headers, authorization: 'Bearer not-a-token' })).statusCode).toBe(401);
    expect((await send(t, 'GET', feedPath(c.g.organizationId), { authorization: c.headers.authorization! })).statusCode).toBe(401);
  });

  // The checks of every organization route, with their answers: the spec's 401 "Insufficient
  // scope" for a missing scope, and 401 "Invalid client credentials" for a path organization
  // that is not the token's (the prescriptions list answers both the same way).
  it('refuses a token without read:patient_prescription as the prescriptions list does (401 Insufficient scope)', async () => {
    const token = await requestToken(t, c.g, SCOPES.filter((scope) => scope !== 'read:patient_prescription'));
    const response = await send(t, 'GET', feedPath(c.g.organizationId), bearer(token, c.g));
    const list = await send(t, 'GET', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients/${c.patientId}/prescriptions`, bearer(token, c.g));
    expect([response.statusCode, response.json().error.detail]).toEqual([401, 'Insufficient scope']);
    expect(list.statusCode).toBe(response.statusCode);
  });

  it("refuses another organization's feed as its other routes do, listing none of its events", async () => {
    const other = await aClinicWithEvents(1);
    const response = await send(t, 'GET', feedPath(other.g.organizationId), c.headers);
    const list = await send(t, 'GET', `/v1/organizations/${other.g.organizationId}/users/${other.g.userId}/patients/${other.patientId}/prescriptions`, c.headers);
    expect([response.statusCode, response.json().error.detail]).toEqual([401, 'Invalid client credentials']);
    expect(list.statusCode).toBe(response.statusCode);
    expect(response.body).not.toContain('evt_');
    // With the other organization's secret beside this organization's token: the same.
    const mixed = await send(t, 'GET', feedPath(other.g.organizationId), { ...c.headers, 'x-organization-secret': other.g.organizationSecret });
    expect(mixed.statusCode).toBe(401);
    expect(mixed.body).not.toContain('evt_');
  });

  it.each([
    ['limit 0', '?limit=0'],
    ['limit 101', '?limit=101'],
    ['limit abc', '?limit=abc'],
    ['limit -1', '?limit=-1'],
    ['a cursor that is not base64url', '?after=%2F%2F%2F'],
    ['a cursor of other text', `?after=${Buffer.from('12.someone-else').toString('base64url')}`],
    ['an empty cursor', '?after='],
  ])('answers 400 for %s', async (_case, query) => {
    const response = await send(t, 'GET', feedPath(c.g.organizationId, query), c.headers);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ success: false, statusCode: 400 });
  });
});

/** An envelope of the clinic's partner, as the outbox stores it. */
function envelopeFor(clinic: Clinic): WebhookEventEnvelope {
  return {
    event_type: 'prescription.created',
    event_id: newEventId(),
    timestamp: t.clock.now().toISOString(),
    partner_id: clinic.g.partnerId,
    organization_id: clinic.g.organizationId,
    data: { patient_id: clinic.patientId, partner_patient_id: clinic.partnerPatientId, user_id: clinic.g.userId, scid: 'ABCDEF1234567890XY' },
    metadata: { reserved_1: null, reserved_2: null, reserved_3: null },
  };
}

function eventRow(envelope: WebhookEventEnvelope) {
  return { id: envelope.event_id, event_type: envelope.event_type, partner_id: envelope.partner_id, organization_id: envelope.organization_id, body: JSON.stringify(envelope), created_at: envelope.timestamp, traceparent: null };
}

async function seedEvents(db: DatabaseHandle, clinic: Clinic, count: number) {
  await db.insertInto('webhook_events').values(Array.from({ length: count }, () => eventRow(envelopeFor(clinic)))).execute();
}

/** A transaction held open until commit() is called. */
async function openTransaction(db: DatabaseHandle) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: (trx: Parameters<Parameters<ReturnType<DatabaseHandle['transaction']>['execute']>[0]>[0]) => void;
  const ready = new Promise<Parameters<typeof started>[0]>((resolve) => (started = resolve));
  const done = db.transaction().execute(async (trx) => {
    started(trx);
    await gate;
  });
  return {
    trx: await ready,
    commit: async () => {
      release();
      await done;
    },
  };
}

describe.runIf(Boolean(process.env.DATABASE_URL))('commit order on PostgreSQL', () => {
  it('does not skip the event of a transaction that started first and committed last', async () => {
    const clinic = await givenClinic(t);
    const db = t.deps.database;
    const { next: start } = await readAll(clinic.headers, clinic.g.organizationId, 100);
    const slow = await openTransaction(db);
    const early = envelopeFor(clinic);
    await slow.trx.insertInto('webhook_events').values(eventRow(early)).execute();
    const fast = await openTransaction(db);
    const late = envelopeFor(clinic);
    await fast.trx.insertInto('webhook_events').values(eventRow(late)).execute();
    await fast.commit();
    // The fast one has committed, but the slow one (an older transaction) is still in flight:
    // listing the fast one now would move the cursor past the slow one's event.
    const meanwhile = await readFeed(clinic.headers, clinic.g.organizationId, start ? `?after=${start}` : '');
    expect(meanwhile.events.map((event) => event.event_id)).not.toContain(late.event_id);
    await slow.commit();
    // Other test files' transactions may hold both back a moment longer; then both come, in order.
    const after = await eventually(() => readAll(clinic.headers, clinic.g.organizationId, 1, meanwhile.next ?? undefined), (read) => read.events.length >= 2);
    expect(after.events.map((event) => event.event_id)).toEqual([early.event_id, late.event_id]);
  });
});
