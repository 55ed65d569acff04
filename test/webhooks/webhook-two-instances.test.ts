// Several dispatchers on one database share the deliveries, each sent exactly once when
// nothing crashed. Two `erx worker` processes on PostgreSQL (FOR UPDATE SKIP LOCKED claims,
// woken through NOTIFY; runs whenever a PostgreSQL answers, in both suites), and `erx serve`
// beside `erx worker` on the suite's own database (on SQLite, claims ordered by its write lock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, spawnServer, type CliEnvironment } from '../cli/cli-helpers.ts';
import { dropSchemas } from '../global-setup.ts';
import { shouldRunWith } from '../service-availability.ts';
import { newTestSchemaName, TEST_DATABASE_URL } from '../test-app.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { givenPartnerWithEndpoint, openEventSource, spawnWorker, waitUntil, type ChildDispatcher, type EventSource } from './webhook-processes.ts';
import { prescriptionEvent, recordEvents } from './webhooks-given.ts';

const POSTGRES_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = await shouldRunWith('PostgreSQL', POSTGRES_URL);
const EVENTS = 2_000;
const BATCH = 50;

describe.runIf(run)('two instances on one PostgreSQL database', () => {
  const schema = newTestSchemaName('wh2');
  let cli: CliEnvironment;
  let receiver: Receiver;
  let source: EventSource;
  const workers: ChildDispatcher[] = [];
  beforeAll(async () => {
    // A poll slower than the whole test: the instances learn of the events through NOTIFY.
    cli = createCliEnvironment({ DATABASE_URL: POSTGRES_URL, ERX_DATABASE_SCHEMA: schema, ERX_WEBHOOK_POLL_MS: '1000' });
    receiver = await startReceiver(() => ({ status: 200, delayMs: 1 }));
    source = await openEventSource(cli.env);
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await source?.close();
    await receiver?.close();
    await cli?.cleanup();
    await dropSchemas(POSTGRES_URL, [schema]);
  });

  const countDelivered = async () => {
    const row = await source.deps.database.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'delivered').executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('deliver 2,000 events between them, none sent twice', async () => {
    const partners = await Promise.all(['twin-a', 'twin-b'].map((id) => givenPartnerWithEndpoint(source, id, receiver.url)));
    workers.push(...(await Promise.all([spawnWorker(cli.env), spawnWorker(cli.env)])));
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i += BATCH) {
      const events = await recordEvents(source.features.webhooks, Array.from({ length: BATCH }, (_, j) => prescriptionEvent(partners[(i + j) % 2]!)));
      eventIds.push(...events.map((e) => e.event_id));
    }
    await waitUntil(() => receiver.requests.length >= EVENTS, 60_000, () => `${receiver.requests.length} of ${EVENTS} received`);
    await waitUntil(async () => (await countDelivered()) === EVENTS, 15_000, () => 'not every delivery recorded as delivered');

    const counts = new Map<string, number>();
    for (const request of receiver.requests) counts.set(request.eventId!, (counts.get(request.eventId!) ?? 0) + 1);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
    expect(receiver.requests).toHaveLength(EVENTS);
    expect(new Set(counts.keys())).toEqual(new Set(eventIds));

    const bySender = await source.deps.database.selectFrom('webhook_attempts').select(['sent_by', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('sent_by').execute();
    expect(bySender.map((row) => row.sent_by).sort()).toEqual(workers.map((w) => w.id).sort());
    for (const row of bySender) expect(Number(row.n)).toBeGreaterThan(EVENTS / 20);
  }, 120_000);
});

describe('erx serve and erx worker on one database', () => {
  const EVENTS_SHARED = 1_000;
  let cli: CliEnvironment;
  let receiver: Receiver;
  let source: EventSource;
  const children: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];
  beforeAll(async () => {
    cli = createCliEnvironment({ ERX_WEBHOOK_POLL_MS: '50' });
    receiver = await startReceiver(() => ({ status: 200, delayMs: 1 }));
    source = await openEventSource(cli.env);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await source?.close();
    await receiver?.close();
    await cli?.cleanup();
  });

  it('deliver every event once between them', async () => {
    const g = await givenPartnerWithEndpoint(source, 'shared-db', receiver.url);
    const [server, worker] = await Promise.all([spawnServer(cli.env), spawnWorker(cli.env)]);
    children.push(server.child, worker.child);
    for (let i = 0; i < EVENTS_SHARED; i += BATCH) await recordEvents(source.features.webhooks, Array.from({ length: BATCH }, () => prescriptionEvent(g)));
    await waitUntil(() => receiver.requests.length >= EVENTS_SHARED, 60_000, () => `${receiver.requests.length} of ${EVENTS_SHARED} received`);
    await waitUntil(
      async () => Number((await source.deps.database.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'delivered').executeTakeFirstOrThrow()).n) === EVENTS_SHARED,
      15_000,
      () => 'not every delivery recorded as delivered',
    );
    expect(receiver.requests).toHaveLength(EVENTS_SHARED);
    expect(new Set(receiver.requests.map((r) => r.eventId)).size).toBe(EVENTS_SHARED);
    const senders = await source.deps.database.selectFrom('webhook_attempts').select('sent_by').distinct().execute();
    expect(senders.length).toBeGreaterThanOrEqual(1);
    expect(senders.length).toBeLessThanOrEqual(2);
    // On PostgreSQL both take part. SQLite hands its one write lock to whichever process asks
    // while it is free, and a busy process asks again at once: the other may wait it out.
    if (source.deps.database.kind === 'postgres') expect(senders.map((row) => row.sent_by)).toContain(worker.id);
  }, 90_000);
});
