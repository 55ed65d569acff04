// SIGTERM and SIGINT stop a dispatcher cleanly, in `erx worker` and in `erx serve`: no new
// claims, the attempt in flight finishes and its outcome is recorded, then exit 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts } from '../../src/webhooks/index.ts';
import { createCliEnvironment, spawnServer, type CliEnvironment } from '../cli/cli-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { givenPartnerWithEndpoint, openEventSource, spawnWorker, waitUntil, type EventSource } from './webhook-processes.ts';
import { recordEventFor } from './webhooks-given.ts';

let cli: CliEnvironment;
let receiver: Receiver;
let source: EventSource;
beforeAll(async () => {
  cli = createCliEnvironment({ ERX_WEBHOOK_POLL_MS: '100' });
  receiver = await startReceiver(() => ({ status: 200, delayMs: 700 }));
  source = await openEventSource(cli.env);
});
afterAll(async () => {
  await source?.close();
  await receiver?.close();
  await cli?.cleanup();
});

describe('stopping a dispatcher', () => {
  it.each([
    ['erx worker', 'SIGTERM'],
    ['erx serve', 'SIGINT'],
  ] as const)('%s on %s lets the attempt in flight finish and record, then exits 0', async (command, signal) => {
    const g = await givenPartnerWithEndpoint(source, `stop-${signal.toLowerCase()}`, receiver.url);
    const dispatching = command === 'erx worker' ? await spawnWorker(cli.env) : await spawnServer(cli.env);
    const exited = new Promise<number | null>((resolve) => dispatching.child.once('exit', (code) => resolve(code)));
    const event = await recordEventFor(source.features.webhooks, g);
    await waitUntil(() => receiver.requests.some((r) => r.eventId === event.event_id), 10_000, () => 'the event never reached the receiver');
    dispatching.child.kill(signal);
    expect(await exited).toBe(0);
    const log = await listWebhookAttempts(source.features.webhooks, event.event_id);
    expect(log.deliveries[0]).toMatchObject({ status: 'delivered' });
    expect(log.deliveries[0]!.attempts.map((a) => [a.outcome, a.status_code])).toEqual([['success', 200]]);
    expect(log.deliveries[0]!.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(700);
    expect(receiver.requests.filter((r) => r.eventId === event.event_id)).toHaveLength(1);
  }, 30_000);
});
