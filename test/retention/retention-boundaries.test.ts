// Retention deletes each kind of record just past its period and keeps it just before, with a
// manual clock: webhook history (90 days, finished deliveries only), response bodies (30 days,
// the attempt kept), idempotency keys (24 h), SSO tokens (a day past expiry), portal sessions
// (idle timeout, or 12 h) and the form ids of sessions gone. A dry run counts and deletes nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneExpiredRecords } from '../../src/retention/index.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { countRows, insertIdempotencyKeys, insertReplayDelivery, insertWebhookHistory } from './retention-given.ts';

const DAY = 86_400_000;
let t: TestApp;
let g: GivenIntegration;
beforeEach(async () => {
  t = await createTestApp();
  g = await givenIntegration(t);
});
afterEach(() => t.close());

const db = () => t.deps.database;
const ago = (ms: number) => new Date(t.clock.now().getTime() - ms);
const history = (createdAt: Date, shape: Partial<Parameters<typeof insertWebhookHistory>[2]> = {}) =>
  insertWebhookHistory(db(), 1, { partnerId: g.partnerId, organizationId: g.organizationId, createdAt, ...shape }).then((ids) => ids[0]!);
const eventExists = async (id: string) => (await db().selectFrom('webhook_events').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
const childrenOf = async (id: string) => ({
  deliveries: (await db().selectFrom('webhook_deliveries').select('id').where('event_id', '=', id).execute()).length,
  attempts: (await db().selectFrom('webhook_attempts').select('delivery_id').where('event_id', '=', id).execute()).length,
});

describe('webhook history', () => {
  it('deletes an event just older than 90 days with its deliveries and attempts, and keeps one just younger', async () => {
    const older = await history(ago(90 * DAY + 1), { attemptsPerDelivery: 3, status: 'failed' });
    const younger = await history(ago(90 * DAY - 1));
    const report = await pruneExpiredRecords(t.features.retention);
    expect(await eventExists(older)).toBe(false);
    expect(await childrenOf(older)).toEqual({ deliveries: 0, attempts: 0 });
    expect(await eventExists(younger)).toBe(true);
    expect(await childrenOf(younger)).toEqual({ deliveries: 1, attempts: 1 });
    expect(report.counts).toMatchObject({ webhook_events: 1, webhook_deliveries: 1, webhook_attempts: 3 });
  });

  it('never deletes an event with a delivery still pending (its own, or a replay), however old', async () => {
    const waiting = await history(ago(400 * DAY), { status: 'pending', attemptsPerDelivery: 2 });
    const replaying = await history(ago(400 * DAY));
    await insertReplayDelivery(db(), replaying, g.partnerId, ago(DAY), 'pending');
    const report = await pruneExpiredRecords(t.features.retention);
    expect(await eventExists(waiting)).toBe(true);
    expect(await childrenOf(waiting)).toEqual({ deliveries: 1, attempts: 2 });
    expect(await eventExists(replaying)).toBe(true);
    expect(await childrenOf(replaying)).toEqual({ deliveries: 2, attempts: 1 });
    expect(report.counts.webhook_events).toBe(0);
  });

  it('follows ERX_RETENTION_WEBHOOK_DAYS', async () => {
    await t.close();
    t = await createTestApp({ env: { ERX_RETENTION_WEBHOOK_DAYS: '7' } });
    g = await givenIntegration(t);
    const older = await history(ago(7 * DAY + 1));
    const younger = await history(ago(7 * DAY - 1));
    await pruneExpiredRecords(t.features.retention);
    expect([await eventExists(older), await eventExists(younger)]).toEqual([false, true]);
  });
});

describe('response bodies', () => {
  it('clears the body of an attempt just older than 30 days and keeps the attempt; a younger body stays', async () => {
    const event = await history(ago(60 * DAY), { status: 'pending', attemptedAt: ago(30 * DAY + 1), responseBody: 'old body' });
    const fresh = await history(ago(60 * DAY), { status: 'pending', attemptedAt: ago(30 * DAY - 1), responseBody: 'new body' });
    const report = await pruneExpiredRecords(t.features.retention);
    const bodyOf = (id: string) => db().selectFrom('webhook_attempts').select(['response_body', 'status_code']).where('event_id', '=', id).executeTakeFirstOrThrow();
    expect(await bodyOf(event)).toEqual({ response_body: null, status_code: 200 });
    expect(await bodyOf(fresh)).toEqual({ response_body: 'new body', status_code: 200 });
    expect(report.counts.webhook_response_bodies).toBe(1);
  });
});

describe('idempotency keys, SSO tokens, portal sessions and form ids', () => {
  it('deletes idempotency keys whose 24 hours are over and keeps those still answering', async () => {
    await insertIdempotencyKeys(db(), 2, g, ago(1));
    await insertIdempotencyKeys(db(), 3, g, ago(-1));
    const report = await pruneExpiredRecords(t.features.retention);
    expect(report.counts.idempotency_keys).toBe(2);
    expect(await countRows(db(), 'idempotency_keys')).toBe(3);
  });

  it('deletes SSO tokens a day past their expiry, keeping later ones so a late click still reads "expired"', async () => {
    const token = (hash: string, expiresAt: Date) => ({
      token_hash: hash, partner_id: g.partnerId, organization_id: g.organizationId, user_id: g.userId,
      redirect_path: '/', created_at: ago(2 * DAY).toISOString(), expires_at: expiresAt.toISOString(),
    });
    await db().insertInto('sso_tokens').values([token('gone', ago(DAY + 1)), token('kept', ago(DAY - 1)), token('live', ago(-60_000))]).execute();
    const report = await pruneExpiredRecords(t.features.retention);
    expect((await db().selectFrom('sso_tokens').select('token_hash').orderBy('token_hash').execute()).map((r) => r.token_hash)).toEqual(['kept', 'live']);
    expect(report.counts.sso_tokens).toBe(1);
  });

  it('deletes portal sessions idle past the timeout or past 12 hours old, and the form ids of sessions gone', async () => {
    const idle = t.deps.config.portalIdleTimeoutSeconds * 1000;
    const session = (hash: string, createdAt: Date, lastSeen: Date) => ({
      session_hash: hash, partner_id: g.partnerId, organization_id: g.organizationId, user_id: g.userId,
      csrf_secret: 'x', created_at: createdAt.toISOString(), last_seen_at: lastSeen.toISOString(),
    });
    await db().insertInto('portal_sessions').values([
      session('idle', ago(idle + 10), ago(idle + 1)),
      session('active', ago(idle + 10), ago(idle - 1)),
      session('too-old', ago(12 * 3_600_000 + 1), ago(0)),
    ]).execute();
    const form = (id: string, sessionHash: string) => ({ form_id: id, session_hash: sessionHash, purpose: 'new', target: 'p', claimed_at: ago(idle).toISOString(), result: 'SCID' });
    await db().insertInto('portal_form_ids').values([form('f-idle', 'idle'), form('f-active', 'active'), form('f-old', 'too-old'), form('f-signed-out', 'gone-before')]).execute();
    const report = await pruneExpiredRecords(t.features.retention);
    expect((await db().selectFrom('portal_sessions').select('session_hash').execute()).map((r) => r.session_hash)).toEqual(['active']);
    expect((await db().selectFrom('portal_form_ids').select('form_id').execute()).map((r) => r.form_id)).toEqual(['f-active']);
    expect(report.counts).toMatchObject({ portal_sessions: 2, portal_form_ids: 3 });
  });
});

describe('security alerts', () => {
  it('deletes buckets whose last refusal is just older than ERX_RETENTION_SECURITY_ALERT_DAYS (365), and keeps one just younger', async () => {
    expect(t.deps.config.retentionSecurityAlertDays).toBe(365);
    const bucket = (address: string, lastAt: Date) => ({
      minute: `${lastAt.toISOString().slice(0, 16)}Z`, client_address: address, endpoint: '/v1/token', reason: 'ids_malformed',
      count: 7, first_at: lastAt.toISOString(), last_at: lastAt.toISOString(), partner_id: null, organization_id: null, user_id: null,
    });
    await db().insertInto('security_alerts').values([bucket('192.0.2.1', ago(365 * DAY + 1)), bucket('192.0.2.2', ago(365 * DAY - 1))]).execute();
    const report = await pruneExpiredRecords(t.features.retention);
    expect((await db().selectFrom('security_alerts').select('client_address').execute()).map((r) => r.client_address)).toEqual(['192.0.2.2']);
    expect(report.counts).toMatchObject({ security_alerts: 1 });
  });
});

describe('a dry run', () => {
  it('counts what a real run then deletes, and deletes nothing itself', async () => {
    await insertWebhookHistory(db(), 5, { partnerId: g.partnerId, organizationId: g.organizationId, createdAt: ago(100 * DAY), attemptsPerDelivery: 2 });
    await history(ago(40 * DAY), { responseBody: 'kept row, cleared body' });
    await insertIdempotencyKeys(db(), 4, g, ago(1));
    const before = { events: await countRows(db(), 'webhook_events'), attempts: await countRows(db(), 'webhook_attempts'), keys: await countRows(db(), 'idempotency_keys') };

    const dry = await pruneExpiredRecords(t.features.retention, { dryRun: true });
    expect(dry).toMatchObject({ dry_run: true, batches: 0 });
    expect(dry.counts).toMatchObject({ webhook_events: 5, webhook_deliveries: 5, webhook_attempts: 10, webhook_response_bodies: 1, idempotency_keys: 4 });
    expect({ events: await countRows(db(), 'webhook_events'), attempts: await countRows(db(), 'webhook_attempts'), keys: await countRows(db(), 'idempotency_keys') }).toEqual(before);

    const real = await pruneExpiredRecords(t.features.retention);
    expect(real.counts).toEqual(dry.counts);
  });
});
