// Retention works in batches of at most 1,000 rows, each its own transaction: a backlog of
// 2,500 goes in three, a webhook history batch counts its deliveries and attempts among its
// rows, two prunes at once share the work without failing. A replay of a pruned event says it
// was pruned. The hourly run beside the dispatcher uses injected timers and the clock, logs its
// counts and stops between two batches.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneExpiredRecords, RETENTION_BATCH_ROWS, RETENTION_EVERY_MS, RETENTION_FIRST_AFTER_MS, startRetentionSchedule, type RetentionCounts, type RetentionTimers } from '../../src/retention/index.ts';
import { listWebhookAttempts, replayWebhookEvents } from '../../src/webhooks/index.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { eventually } from '../webhooks/webhooks-given.ts';
import { countRows, insertIdempotencyKeys, insertWebhookHistory } from './retention-given.ts';

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
const rowsOf = (rows: RetentionCounts) => Object.values(rows).reduce((a, b) => a + b, 0);

describe('batches', () => {
  it('deletes a backlog of 2,500 idempotency keys in three batches of at most 1,000', async () => {
    await insertIdempotencyKeys(db(), 2_500, g, ago(1));
    const batches: number[] = [];
    const report = await pruneExpiredRecords(t.features.retention, { onBatch: ({ rows }) => rows.idempotency_keys && batches.push(rows.idempotency_keys) });
    expect(RETENTION_BATCH_ROWS).toBe(1_000);
    expect(batches).toEqual([1_000, 1_000, 500]);
    expect(report.counts.idempotency_keys).toBe(2_500);
    expect(await countRows(db(), 'idempotency_keys')).toBe(0);
  });

  it('counts deliveries and attempts among a webhook batch\'s rows: 600 events of 4 rows go 250 at a time', async () => {
    await insertWebhookHistory(db(), 600, { partnerId: g.partnerId, organizationId: g.organizationId, createdAt: ago(100 * DAY), attemptsPerDelivery: 2 });
    const batches: RetentionCounts[] = [];
    await pruneExpiredRecords(t.features.retention, { onBatch: ({ rows }) => rows.webhook_events !== undefined && batches.push(rows) });
    expect(batches.map(rowsOf)).toEqual([1_000, 1_000, 400]);
    expect(batches.map((b) => b.webhook_events)).toEqual([250, 250, 100]);
    expect([await countRows(db(), 'webhook_events'), await countRows(db(), 'webhook_deliveries'), await countRows(db(), 'webhook_attempts')]).toEqual([0, 0, 0]);
  });

  it('lets two prunes run at once: together they delete the backlog once, and neither fails', async () => {
    await insertWebhookHistory(db(), 1_500, { partnerId: g.partnerId, organizationId: g.organizationId, createdAt: ago(100 * DAY) });
    await insertIdempotencyKeys(db(), 1_500, g, ago(1));
    const [a, b] = await Promise.all([pruneExpiredRecords(t.features.retention), pruneExpiredRecords(t.features.retention)]);
    expect(a.counts.webhook_events! + b.counts.webhook_events!).toBe(1_500);
    expect(a.counts.idempotency_keys! + b.counts.idempotency_keys!).toBe(1_500);
    expect([await countRows(db(), 'webhook_events'), await countRows(db(), 'webhook_attempts'), await countRows(db(), 'idempotency_keys')]).toEqual([0, 0, 0]);
  });
});

describe('a pruned event', () => {
  it('is refused for replay as pruned, apart from ids never known, and replays nothing', async () => {
    const [pruned] = await insertWebhookHistory(db(), 1, { partnerId: g.partnerId, organizationId: g.organizationId, createdAt: ago(100 * DAY), status: 'failed' });
    const [kept] = await insertWebhookHistory(db(), 1, { partnerId: g.partnerId, organizationId: g.organizationId, createdAt: ago(DAY), status: 'failed' });
    await pruneExpiredRecords(t.features.retention);
    const unknown = `evt_${(t.clock.now().getTime() + DAY).toString(16).padStart(12, '0')}${'0'.repeat(20)}`;
    const replay = (ids: string[]) => replayWebhookEvents(t.features.webhooks, { eventIds: ids, requestedBy: 'ops', dryRun: false });

    await expect(replay([pruned!])).rejects.toThrow(`event pruned by retention (older than the webhook history kept): ${pruned}; nothing was replayed`);
    await expect(replay([unknown])).rejects.toThrow(`event not found: ${unknown}; nothing was replayed`);
    await expect(replay(['evt_not-an-id'])).rejects.toThrow('event not found: evt_not-an-id; nothing was replayed');
    await expect(replay([kept!, pruned!, unknown])).rejects.toThrow(`event pruned by retention (older than the webhook history kept): ${pruned}; event not found: ${unknown}; nothing was replayed`);
    await expect(listWebhookAttempts(t.features.webhooks, pruned!)).rejects.toThrow(`event ${pruned} was pruned by retention (older than the webhook history kept)`);
    await expect(listWebhookAttempts(t.features.webhooks, unknown)).rejects.toThrow(`event ${unknown} not found`);
    expect(await countRows(db(), 'webhook_deliveries')).toBe(1);
  });

  it('is "not found" before any prune ran', async () => {
    const id = `evt_${(t.clock.now().getTime() - 100 * DAY).toString(16).padStart(12, '0')}${'0'.repeat(20)}`;
    await expect(replayWebhookEvents(t.features.webhooks, { eventIds: [id], requestedBy: 'ops', dryRun: false })).rejects.toThrow(`event not found: ${id}`);
  });
});

/** Timers a test fires itself. */
function manualTimers() {
  const set: Array<{ run: () => void; ms: number; cleared: boolean; fired: boolean }> = [];
  const timers: RetentionTimers = {
    setTimeout: (run, ms) => {
      const timer = { run, ms, cleared: false, fired: false };
      set.push(timer);
      return timer;
    },
    clearTimeout: (timer) => {
      if (timer) (timer as (typeof set)[number]).cleared = true;
    },
  };
  const waiting = () => set.filter((timer) => !timer.cleared && !timer.fired);
  const fire = () => {
    const [next] = waiting();
    if (!next) throw new Error('no timer is waiting');
    next.fired = true;
    next.run();
  };
  return { timers, waiting, fire };
}

const retentionLogs = () => t.logs.map((line) => JSON.parse(line)).filter((line) => line.retention);

describe('the hourly run', () => {
  it('runs a minute after start and then every hour, pruning by the injected clock and logging its counts', async () => {
    const { timers, waiting, fire } = manualTimers();
    await insertIdempotencyKeys(db(), 3, g, ago(-3_600_000));
    const running = startRetentionSchedule(t.features.retention, { timers });
    try {
      expect(waiting().map((timer) => timer.ms)).toEqual([RETENTION_FIRST_AFTER_MS]);
      fire();
      await eventually(async () => retentionLogs().length, (n) => n === 1, 10_000);
      expect(retentionLogs()[0]).toMatchObject({ msg: 'retention pruned 0 rows', interrupted: false });
      expect(waiting().map((timer) => timer.ms)).toEqual([RETENTION_EVERY_MS]);
      expect(RETENTION_EVERY_MS).toBe(3_600_000);

      t.clock.advanceSeconds(2 * 3600);
      fire();
      await eventually(async () => retentionLogs().length, (n) => n === 2, 10_000);
      expect(retentionLogs()[1]).toMatchObject({ msg: 'retention pruned 3 rows', retention: { idempotency_keys: 3 } });
      expect(await countRows(db(), 'idempotency_keys')).toBe(0);
    } finally {
      await running.stop();
    }
    expect(waiting()).toEqual([]);
  });

  it('stops between two batches when the process shuts down, and schedules nothing more', async () => {
    const { timers, waiting, fire } = manualTimers();
    await insertIdempotencyKeys(db(), 2_500, g, ago(1));
    const running = startRetentionSchedule(t.features.retention, { timers });
    fire();
    await running.stop();
    expect(retentionLogs()).toHaveLength(1);
    expect(retentionLogs()[0]).toMatchObject({ interrupted: true, batches: 1 });
    expect(await countRows(db(), 'idempotency_keys')).toBe(2_500);
    expect(waiting()).toEqual([]);
  });
});
