// Crash safety: `kill -9` of the serving process in the middle of 2,000 events, a restart, and
// every event reaches the receiver at least once. What was claimed but not recorded when the
// process died is claimed again when its lease expires (twice the attempt timeout, 1 s here,
// plus the 5 s margin). Every request the receiver got is a recorded attempt, except at most one
// per event: one the killed process sent and could not record.
import { describe, expect, it } from 'vitest';
import { spawnServer } from '../cli/cli-helpers.ts';
import { countDeliveries, givenPartnerWithEndpoint, useProcessBed, waitUntil } from './webhook-processes.ts';
import { prescriptionEvent, recordEvents } from './webhooks-given.ts';

const EVENTS = 2_000;
const BATCH = 50;
const MAX_IN_FLIGHT = 16;
const bed = useProcessBed({ ERX_WEBHOOK_POLL_MS: '100', ERX_WEBHOOK_TIMEOUT_MS: '1000', ERX_WEBHOOK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT) }, () => ({
  status: 200,
  delayMs: 2,
}));

const distinctReceived = () => new Set(bed.receiver.requests.map((r) => r.eventId)).size;

describe('crash safety', () => {
  it('after kill -9 mid-way through 2,000 events and a restart, every event reaches the receiver at least once', async () => {
    const g = await givenPartnerWithEndpoint(bed.source, 'crash-test', bed.receiver.url);
    const first = await spawnServer(bed.cli.env);
    bed.children.push(first.child);
    const recording = (async () => {
      const ids: string[] = [];
      for (let i = 0; i < EVENTS; i += BATCH) {
        const events = await recordEvents(bed.source.features.webhooks, Array.from({ length: BATCH }, () => prescriptionEvent(g)));
        ids.push(...events.map((e) => e.event_id));
      }
      return ids;
    })();

    await waitUntil(() => distinctReceived() >= EVENTS / 5, 30_000, () => `${distinctReceived()} events received`);
    const killed = new Promise((resolve) => first.child.once('exit', resolve));
    const killedAt = new Date().toISOString();
    first.child.kill('SIGKILL');
    await killed;
    // Its connections close once the receiver has read everything the process sent on them.
    await waitUntil(() => bed.receiver.openConnections() === 0, 10_000, () => `${bed.receiver.openConnections()} connections still open`);
    const eventIds = await recording;
    const receivedAtKill = distinctReceived();
    const receivedBeforeKill = new Set(bed.receiver.requests.map((r) => r.eventId));
    const pending = await countDeliveries(bed.source, 'pending');
    expect(pending, 'the kill left deliveries to do').toBeGreaterThan(0);
    expect(receivedAtKill).toBeLessThan(EVENTS);

    const second = await spawnServer(bed.cli.env);
    bed.children.push(second.child);
    await waitUntil(() => distinctReceived() === EVENTS, 60_000, () => `${distinctReceived()} of ${EVENTS} events received`);
    await waitUntil(async () => (await countDeliveries(bed.source, 'delivered')) === EVENTS, 15_000, () => 'not every delivery recorded as delivered');

    const received = new Set(bed.receiver.requests.map((r) => r.eventId));
    expect(eventIds.every((id) => received.has(id))).toBe(true);
    const attempts = await recordedAttempts();
    const killedIds = new Set(attempts.filter((a) => a.started_at < killedAt).map((a) => a.sent_by));
    expect(killedIds.size).toBe(1);
    const unaccounted = eventIds.filter((id) => {
      const recorded = attempts.filter((a) => a.event_id === id);
      const sentByTheKilled = receivedBeforeKill.has(id) && !recorded.some((a) => killedIds.has(a.sent_by)) ? 1 : 0;
      return bed.receiver.requests.filter((r) => r.eventId === id).length > recorded.length + sentByTheKilled;
    });
    expect(unaccounted).toEqual([]);
    expect(eventIds.every((id) => attempts.some((a) => a.event_id === id && a.outcome === 'success'))).toBe(true);
    second.child.kill('SIGTERM');
  }, 120_000);
});

async function recordedAttempts() {
  return bed.source.deps.database.selectFrom('webhook_attempts').select(['event_id', 'sent_by', 'started_at', 'outcome']).execute();
}
