// Which dispatchers a commit wakes: exactly the partners whose events that transaction wrote,
// however long it took and whatever other transactions did meanwhile, and nobody for a
// transaction that rolled back. On PostgreSQL the NOTIFY to other instances names the same
// partners.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { listenToPostgresChannel, type PostgresListener } from '../../src/platform/db/postgres-listener.ts';
import { recordEvent, type WebhooksContext } from '../../src/webhooks/index.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createWebhooksBed, eventually, prescriptionEvent, type WebhooksBed } from './webhooks-given.ts';

let bed: WebhooksBed;
let a: GivenIntegration;
let b: GivenIntegration;
let c: GivenIntegration;
beforeAll(async () => {
  bed = await createWebhooksBed();
  [a, b, c] = [await givenIntegration(bed.t), await givenIntegration(bed.t), await givenIntegration(bed.t)];
});
afterAll(() => bed.close());
afterEach(() => vi.useRealTimers());

/** Every wake a fresh webhooks context (its own outbox and dispatchers' wake-ups) hands its dispatchers. */
function contextHearingWakes(): { webhooks: WebhooksContext; wakes: string[][] } {
  const webhooks = bed.contextWith({});
  const wakes: string[][] = [];
  webhooks.wakeups.onWake((partners) => wakes.push([...partners]));
  return { webhooks, wakes };
}

/** Resolves once `parties` callers have arrived. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  return () => {
    arrived += 1;
    if (arrived === parties) release();
    return all;
  };
}

/** On PostgreSQL: the payloads (partner ids, comma-separated) of the NOTIFYs on the context's channel. */
async function listenToBroadcasts(webhooks: WebhooksContext): Promise<{ heard: string[]; errors: Error[]; listener: PostgresListener } | undefined> {
  if (!webhooks.notifications) return undefined;
  const heard: string[] = [];
  const errors: Error[] = [];
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const listener = listenToPostgresChannel({
    ...webhooks.notifications,
    onNotification: (payload) => heard.push(payload),
    onListening: () => listening(),
    onError: (error) => errors.push(error),
  });
  await ready;
  return { heard, errors, listener };
}

describe('what a commit wakes', () => {
  it("wakes exactly the committed transaction's partners, each once, and none of one that rolled back beside it", async () => {
    const { webhooks, wakes } = contextHearingWakes();
    const broadcasts = await listenToBroadcasts(webhooks);
    try {
      // PostgreSQL runs the two at once: both have recorded before either ends. SQLite runs
      // transactions one at a time (one must not wait for another), so there the one that
      // rolls back runs first, and has recorded its event before the other commits.
      const overlap = webhooks.db.kind === 'postgres' ? barrier(2) : async () => {};
      const rolledBack = webhooks.unitOfWork.run(async (work) => {
        recordEvent(work, prescriptionEvent(b));
        await overlap();
        throw new Error('the change failed');
      });
      const committed = webhooks.unitOfWork.run(async (work) => {
        recordEvent(work, prescriptionEvent(a));
        recordEvent(work, prescriptionEvent(c));
        recordEvent(work, prescriptionEvent(a, 'prescription.ceased'));
        await overlap();
      });
      const [rollback, commit] = await Promise.allSettled([rolledBack, committed]);
      expect([rollback.status, commit.status]).toEqual(['rejected', 'fulfilled']);
      expect(wakes).toEqual([[a.partnerId, c.partnerId]]);
      if (broadcasts) {
        await eventually(async () => broadcasts.heard.length, (n) => n > 0);
        expect([broadcasts.heard, broadcasts.errors]).toEqual([[`${a.partnerId},${c.partnerId}`], []]);
      }
    } finally {
      await broadcasts?.listener.close();
    }
  });

  it('wakes the partner of a transaction that commits long after it recorded its event', async () => {
    const { webhooks, wakes } = contextHearingWakes();
    // Every clock the process reads (Date and the performance clock) is the test's to move.
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    await webhooks.unitOfWork.run(async (work) => {
      recordEvent(work, prescriptionEvent(a));
      vi.advanceTimersByTime(10 * 60_000); // ten minutes pass before this transaction commits
    });
    expect(wakes).toEqual([[a.partnerId]]);
  });

  it('wakes nobody for a transaction that rolled back, alone', async () => {
    const { webhooks, wakes } = contextHearingWakes();
    const change = webhooks.unitOfWork.run(async (work) => {
      recordEvent(work, prescriptionEvent(b));
      throw new Error('the change failed');
    });
    await expect(change).rejects.toThrow('the change failed');
    const after = await webhooks.unitOfWork.run(async () => 'a change that records no event');
    expect([after, wakes]).toEqual(['a change that records no event', []]);
  });
});
