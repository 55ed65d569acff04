// Several dispatchers on one database share the deliveries, each sent exactly once when
// nothing crashed. Two `erx worker` processes on PostgreSQL (FOR UPDATE SKIP LOCKED claims,
// woken through NOTIFY; runs whenever a PostgreSQL answers, in both suites), and `erx serve`
// beside `erx worker` on the suite's own database (on SQLite, claims ordered by its write lock).
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../cli/cli-helpers.ts';
import { dropSchemas } from '../global-setup.ts';
import { shouldRunWith } from '../service-availability.ts';
import { newTestSchemaName, TEST_DATABASE_URL } from '../test-app.ts';
import { countDeliveries, givenPartnerWithEndpoint, spawnWorker, useProcessBed, waitUntil, type ChildDispatcher } from './webhook-processes.ts';
import { prescriptionEvent, recordEvents } from './webhooks-given.ts';

const POSTGRES_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = await shouldRunWith('PostgreSQL', POSTGRES_URL);
const EVENTS = 2_000;
const BATCH = 50;

describe.runIf(run)('two instances on one PostgreSQL database', () => {
  const schema = newTestSchemaName('wh2');
  // Dropped last: after hooks run as a stack, so the bed is taken down first.
  afterAll(() => dropSchemas(POSTGRES_URL, [schema]));
  // A poll slower than the whole test: the instances learn of the events through NOTIFY.
  const bed = useProcessBed({ DATABASE_URL: POSTGRES_URL, ERX_DATABASE_SCHEMA: schema, ERX_WEBHOOK_POLL_MS: '1000' }, () => ({ status: 200, delayMs: 1 }));
  const workers: ChildDispatcher[] = [];

  it('deliver 2,000 events between them, none sent twice', async () => {
    const partners = await Promise.all(['twin-a', 'twin-b'].map((id) => givenPartnerWithEndpoint(bed.source, id, bed.receiver.url)));
    workers.push(...(await Promise.all([spawnWorker(bed.cli.env), spawnWorker(bed.cli.env)])));
    bed.children.push(...workers.map((w) => w.child));
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i += BATCH) {
      const events = await recordEvents(bed.source.features.webhooks, Array.from({ length: BATCH }, (_, j) => prescriptionEvent(partners[(i + j) % 2]!)));
      eventIds.push(...events.map((e) => e.event_id));
    }
    await waitUntil(() => bed.receiver.requests.length >= EVENTS, 60_000, () => `${bed.receiver.requests.length} of ${EVENTS} received`);
    await waitUntil(async () => (await countDeliveries(bed.source, 'delivered')) === EVENTS, 15_000, () => 'not every delivery recorded as delivered');

    const counts = new Map<string, number>();
    for (const request of bed.receiver.requests) counts.set(request.eventId!, (counts.get(request.eventId!) ?? 0) + 1);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
    expect(bed.receiver.requests).toHaveLength(EVENTS);
    expect(new Set(counts.keys())).toEqual(new Set(eventIds));

    const bySender = await bed.source.deps.database.selectFrom('webhook_attempts').select(['sent_by', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('sent_by').execute();
    expect(bySender.map((row) => row.sent_by).sort()).toEqual(workers.map((w) => w.id).sort());
    for (const row of bySender) expect(Number(row.n)).toBeGreaterThan(EVENTS / 20);
  }, 120_000);
});

describe('erx serve and erx worker on one database', () => {
  const EVENTS_SHARED = 1_000;
  const bed = useProcessBed({ ERX_WEBHOOK_POLL_MS: '50' }, () => ({ status: 200, delayMs: 1 }));

  it('deliver every event once between them', async () => {
    const g = await givenPartnerWithEndpoint(bed.source, 'shared-db', bed.receiver.url);
    const [server, worker] = await Promise.all([spawnServer(bed.cli.env), spawnWorker(bed.cli.env)]);
    bed.children.push(server.child, worker.child);
    for (let i = 0; i < EVENTS_SHARED; i += BATCH) await recordEvents(bed.source.features.webhooks, Array.from({ length: BATCH }, () => prescriptionEvent(g)));
    await waitUntil(() => bed.receiver.requests.length >= EVENTS_SHARED, 60_000, () => `${bed.receiver.requests.length} of ${EVENTS_SHARED} received`);
    await waitUntil(
async () => (await countDeliveries(bed.source, 'delivered')) === EVENTS_SHARED, 15_000, () => 'not every delivery recorded as delivered');
    expect(bed.receiver.requests).toHaveLength(EVENTS_SHARED);
    expect(new Set(bed.receiver.requests.map((r) => r.eventId)).size).toBe(EVENTS_SHARED);
    const senders = await bed.source.deps.database.selectFrom('webhook_attempts').select('sent_by').distinct().execute();
    expect(senders.length).toBeGreaterThanOrEqual(1);
    expect(senders.length).toBeLessThanOrEqual(2);
    // On PostgreSQL both take part. SQLite hands its one write lock to whichever process asks
    // while it is free, and a busy process asks again at once: the other may wait it out.
    if (bed.source.deps.database.kind === 'postgres') expect(senders.map((row) => row.sent_by)).toContain(worker.id);
  }, 90_000);
});
