// The "done when", through the real CLI and a real `erx serve`: an endpoint registered
// by command receives a signed event that the stripe package verifies; a receiver answering 503
// gets exactly 3 attempts, 1 s and 2 s apart; the event shows as failed and a replay delivers
// it. Events come from this test process, writing to the server's database through the
// webhooks service, as the prescriptions service will.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildFeatures } from '../../src/features.ts';
import { createOrganization, createPartner, enablePartnerForOrganization } from '../../src/onboarding/index.ts';
import { listWebhookEvents, parseEventFilter, type WebhooksContext } from '../../src/webhooks/index.ts';
import type { Deps } from '../../src/deps.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, spawnServer, type CliEnvironment } from '../cli/cli-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';
import { prescriptionEvent, recordEvents, waitForAPoll } from './webhooks-given.ts';

const stripe = new Stripe('sk_test_unused');
let cli: CliEnvironment;
let server: Awaited<ReturnType<typeof spawnServer>>;
let receiver: Receiver;
let answer = 200;
let deps: Deps;
let webhooks: WebhooksContext;
let partner: { partner_id: string; webhook_secret: string };
let organizationId: string;
/** A second partner, whose deliveries show that the server has polled. */
const witness = { partnerId: 'witness-pms', organizationId: '', userId: 'b1c2d3e4-0000-4000-8000-000000000002' };

beforeAll(async () => {
  cli = createCliEnvironment({ ERX_WEBHOOK_POLL_MS: '200', ERX_WEBHOOK_TIMEOUT_MS: '2000' });
  receiver = await startReceiver(() => ({ status: answer, body: `answered ${answer}` }));
  server = await spawnServer(cli.env);
  partner = await runErxJson(cli.env, ['partner', 'create', 'acme-pms', '--webhook-url', receiver.url]);
  deps = await assembleDeps(loadConfig(cli.env));
  const features = buildFeatures(deps);
  webhooks = features.webhooks;
  organizationId = (await createOrganization(features.onboarding, { name: 'Harbour Clinic' })).organization_id;
  await enablePartnerForOrganization(features.onboarding, { organizationId, partnerId: 'acme-pms' });
  await createPartner(features.onboarding, { partnerId: witness.partnerId, webhookUrl: receiver.url });
  await enablePartnerForOrganization(features.onboarding, { organizationId, partnerId: witness.partnerId });
  witness.organizationId = organizationId;
}, 60_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  if (deps) await closeDeps(deps);
  await receiver?.close();
  await cli?.cleanup();
});

const recordOne = async (type?: string) => (await recordEvents(webhooks, [prescriptionEvent({ partnerId: 'acme-pms', organizationId, userId: 'b1c2d3e4-0000-4000-8000-000000000002' }, type)]))[0]!;
const signatureOf = (eventId: string, index = 0) => String(receiver.requests.filter((r) => r.eventId === eventId)[index]!.headers['x-webhook-signature']);

describe('erx webhooks, against a running erx serve', () => {
  it('delivers a signed event to the endpoint registered by partner create; the secret is never shown again', async () => {
    expect(partner.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const event = await recordOne();
    await receiver.waitForRequests(1);
    expect(stripe.webhooks.constructEvent(receiver.requests[0]!.body, signatureOf(event.event_id), partner.webhook_secret)).toEqual(event);

    const shown = await runErx(cli.env, ['webhooks', 'show', 'acme-pms', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ partner_id: 'acme-pms', webhook_url: receiver.url, enabled: true, deliveries: { delivered: 1 } });
    const again = await runErxJson(cli.env, ['webhooks', 'set-endpoint', 'acme-pms', receiver.url]);
    expect(again.webhook_secret).toBeNull();
    const human = await runErx(cli.env, ['webhooks', 'set-endpoint', 'acme-pms', receiver.url]);
    for (const output of [shown.stdout, JSON.stringify(again), human.stdout]) expect(output).not.toContain('whsec_');
  });

  it('gives a 503 receiver exactly 3 attempts 1 s and 2 s apart, lists the event as failed, and replay delivers it', async () => {
    answer = 503;
    const before = receiver.requests.length;
    const event = await recordOne('prescription.cancelled');
    const attempts = (await receiver.waitForRequests(before + 3, 10_000)).slice(before);
    await waitForStatus(event.event_id, 'failed');
    const failed = await runErxJson(cli.env, ['webhooks', 'events', '--status', 'failed', '--partner', 'acme-pms']);
    expect(failed.map((e: { event_id: string }) => e.event_id)).toEqual([event.event_id]);
    expect(receiver.requests.slice(before).filter((r) => r.eventId === event.event_id)).toHaveLength(3);
    expect(attempts[1]!.receivedAt - attempts[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
    expect(attempts[2]!.receivedAt - attempts[1]!.receivedAt).toBeGreaterThanOrEqual(2000);
    const log = await runErxJson(cli.env, ['webhooks', 'attempts', event.event_id]);
    expect(log.deliveries[0].attempts.map((a: { outcome: string; status_code: number; response_body: string }) => [a.outcome, a.status_code, a.response_body])).toEqual([
      ['http_5xx', 503, 'answered 503'],
      ['http_5xx', 503, 'answered 503'],
      ['http_5xx', 503, 'answered 503'],
    ]);
    const human = await runErx(cli.env, ['webhooks', 'events', '--status', 'failed']);
    expect(human.stdout).toContain(`${event.event_id}`);
    expect(human.stdout).toMatch(/failed {2}attempts 3 {2}last http_5xx 503/);

    answer = 200;
    const replay = await runErxJson(cli.env, ['webhooks', 'replay', event.event_id, '--by', 'alice']);
    expect(replay).toMatchObject({ matched: 1, requested_by: 'alice', dry_run: false });
    await waitForStatus(event.event_id, 'delivered');
    const replayed = await runErxJson(cli.env, ['webhooks', 'attempts', event.event_id]);
    expect(replayed.deliveries.map((d: { reason: string; requested_by: string | null; status: string }) => [d.reason, d.requested_by, d.status])).toEqual([
      ['event', null, 'failed'],
      ['replay', 'alice', 'delivered'],
    ]);
    const replayedRequest = receiver.requests.filter((r) => r.eventId === event.event_id)[3]!;
    expect(stripe.webhooks.constructEvent(replayedRequest.body, signatureOf(event.event_id, 3), partner.webhook_secret)).toEqual(event);
  }, 30_000);

  it('rotates the secret: printed once, then two signatures for the overlap', async () => {
    const rotated = await runErxJson(cli.env, ['webhooks', 'rotate-secret', 'acme-pms', '--overlap', '1h']);
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(Date.parse(rotated.previous_secret_valid_until) - Date.now()).toBeGreaterThan(3_500_000);
    const event = await recordOne();
    await waitForRequestOf(event.event_id);
    const header = signatureOf(event.event_id);
    expect(header.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    for (const secret of [rotated.webhook_secret, partner.webhook_secret]) expect(stripe.webhooks.constructEvent(JSON.stringify(event), header, secret)).toEqual(event);
    const human = await runErx(cli.env, ['webhooks', 'show', 'acme-pms']);
    expect(human.stdout).toContain(`old secret signs until: ${rotated.previous_secret_valid_until}`);
    expect(human.stdout).not.toContain('whsec_');
    partner.webhook_secret = rotated.webhook_secret;
  });

  it('holds deliveries while disabled and sends them once enabled', async () => {
    expect((await runErx(cli.env, ['webhooks', 'disable', 'acme-pms'])).stdout).toBe('disabled: webhook endpoint of partner acme-pms\n');
    const event = await recordOne();
    // The server polls (every 200 ms) and passes it over.
    await waitForAPoll(deps.database, witness, receiver);
    await waitForAPoll(deps.database, witness, receiver);
    expect(receiver.requests.some((r) => r.eventId === event.event_id)).toBe(false);
    await runErxJson(cli.env, ['webhooks', 'enable', 'acme-pms']);
    await waitForRequestOf(event.event_id);
  });

  it('pings: one signed webhook.ping, the answer, its latency, and exit 1 unless 2xx', async () => {
    const before = receiver.requests.length;
    const ok = await runErx(cli.env, ['webhooks', 'ping', 'acme-pms']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/hooks\nanswer: {3}200\nlatency: {2}\d+ ms\n2xx: {6}yes\n$/);
    const ping = receiver.requests[before]!;
    const envelope = stripe.webhooks.constructEvent(ping.body, String(ping.headers['x-webhook-signature']), partner.webhook_secret) as unknown as Record<string, unknown>;
    expect(envelope).toMatchObject({ event_type: 'webhook.ping', partner_id: 'acme-pms', data: {}, metadata: { reserved_1: null, reserved_2: null, reserved_3: null } });
    expect(envelope.event_id).toMatch(/^evt_[0-9a-f]{32}$/);

    answer = 503;
    const failing = await runErx(cli.env, ['webhooks', 'ping', 'acme-pms', '--json']);
    answer = 200;
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout)).toMatchObject({ status_code: 503, ok: false, outcome: 'http_5xx' });
    expect(failing.stderr).toBe('');
  });

  it('bulk replay shows its progress and replays exactly what matched', async () => {
    answer = 410;
    const events = [await recordOne(), await recordOne()];
    for (const e of events) await waitForStatus(e.event_id, 'failed');
    answer = 200;
    const dry = await runErx(cli.env, ['webhooks', 'replay', '--partner', 'acme-pms', '--status', 'failed', '--since', events[0]!.timestamp, '--dry-run']);
    expect(dry.stdout).toContain('would replay 2 events');
    const run = await runErx(cli.env, ['webhooks', 'replay', '--partner', 'acme-pms', '--status', 'failed', '--since', events[0]!.timestamp, '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('replay: 2/2 events queued for delivery\n');
    expect(JSON.parse(run.stdout).replayed.map((r: { event_id: string }) => r.event_id).sort()).toEqual(events.map((e) => e.event_id).sort());
    for (const e of events) await waitForRequestOf(e.event_id, 2);
  });

  // One per kind of mistake (a service's refusal, a flag's value, commander's own checks); the
  // services' tests hold every message.
  it.each([
    [['webhooks', 'set-endpoint', 'nobody', 'http://127.0.0.1/x'], /^erx: partner nobody not found$/],
    [['webhooks', 'set-endpoint', 'acme-pms', 'ftp://x'], /^erx: webhook URL must be http\(s\): ftp:\/\/x$/],
    [['webhooks', 'set-endpoint', 'acme-pms'], /missing required argument 'url'/],
    [['webhooks', 'rotate-secret', 'acme-pms', '--overlap', 'forever'], /--overlap must be a duration/],
    [['webhooks', 'events', '--status', 'lost'], /--status must be one of pending, delivered, failed/],
    [['webhooks', 'replay', 'evt_00000000000000000000000000000000', '--partner', 'acme-pms', '--status', 'failed'], /give event ids or --partner with --status, not both/],
    [['webhooks', 'frobnicate'], /unknown command 'frobnicate'/],
  ])('fails with one clear line and a non-zero exit: erx %s', async (args, message) => {
    expectOneLineRefusal(await runErx(cli.env, args as string[]), message as RegExp);
  });
});

/** Polls the database (cheaper than a CLI process per look) until the event's latest delivery has `status`. */
async function waitForStatus(eventId: string, status: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const filter = parseEventFilter({ partner: 'acme-pms', status, limit: '1000' });
  while (!(await listWebhookEvents(webhooks, filter)).some((e) => e.event_id === eventId)) {
    if (Date.now() > deadline) throw new Error(`event ${eventId} not ${status} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitForRequestOf(eventId: string, count = 1, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receiver.requests.filter((r) => r.eventId === eventId).length < count) {
    if (Date.now() > deadline) throw new Error(`event ${eventId} reached the receiver fewer than ${count} times`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
