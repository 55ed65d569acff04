// The Node receiver example of docs/partners/webhooks.md, run as written against our dispatcher: it accepts our
// deliveries (and a rotation's two signatures, holding either secret), handles a replayed event
// once, and refuses a forged signature and a stale timestamp.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookAttempts, replayWebhookEvents, pingWebhookEndpoint, signWebhookPayload } from '../../src/webhooks/index.ts';
import { closedPort } from './webhook-receivers.ts';
import { createWebhooksBed, eventually, givenEndpoint, recordEventFor, type GivenEndpoint, type WebhooksBed } from './webhooks-given.ts';

const MARKER = '<!-- receiver-example';

function readmeReceiverExample(): string {
  const page = fs.readFileSync(path.resolve('docs/partners/webhooks.md'), 'utf8');
  const start = page.indexOf(MARKER);
  const match = /```js\n([\s\S]*?)```/.exec(page.slice(start));
  if (start < 0 || !match) throw new Error('docs/partners/webhooks.md has no receiver example after its marker');
  return match[1]!;
}

let bed: WebhooksBed;
let g: GivenEndpoint;
let receiver: ChildProcess;
let url: string;
let output = '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-readme-receiver-'));

beforeAll(async () => {
  bed = await createWebhooksBed();
  const port = await closedPort();
  url = `http://127.0.0.1:${port}/`;
  g = await givenEndpoint(bed, url);
  const file = path.join(dir, 'receiver.mjs');
  fs.writeFileSync(file, readmeReceiverExample());
  receiver = spawn(process.execPath, [file], { env: { PATH: process.env.PATH ?? '', PORT: String(port), WEBHOOK_SECRET: g.secret }, stdio: ['ignore', 'pipe', 'pipe'] });
  receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await eventually(async () => (await fetch(url, { method: 'POST', body: '{}' }).then((r) => r.status).catch(() => 0)), (status) => status === 400, 10_000);
  bed.startDispatcher();
});
afterAll(async () => {
  receiver?.kill();
  await bed.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const post = (body: string, signature: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-webhook-signature': signature }, body }).then((r) => r.status);
const handledLines = (eventId: string) => output.split('\n').filter((line) => line.endsWith(eventId));

describe("the Node receiver of docs/partners/webhooks.md", () => {
  it('accepts our deliveries and handles a replayed event only once', async () => {
    const event = await recordEventFor(bed.webhooks, g);
    await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries[0]!.status === 'delivered');
    await replayWebhookEvents(bed.webhooks, { eventIds: [event.event_id], requestedBy: 'test', dryRun: false });
    const log = await eventually(() => listWebhookAttempts(bed.webhooks, event.event_id), (l) => l.deliveries.length === 2 && l.deliveries[1]!.status === 'delivered');
    expect(log.deliveries.flatMap((d) => d.attempts.map((a) => a.status_code))).toEqual([200, 200]);
    expect(handledLines(event.event_id)).toEqual([`handling prescription.created ${event.event_id}`]);
    expect((await pingWebhookEndpoint(bed.webhooks, g.partnerId)).ok).toBe(true);
  });

  it('accepts a rotation header while it holds the old secret, and refuses forged or stale signatures', async () => {
    const body = JSON.stringify({ event_type: 'prescription.ceased', event_id: 'evt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' });
    const now = Math.floor(Date.now() / 1000);
    const fresh = `whsec_${'n'.repeat(43)}`;
    expect(await post(body, signWebhookPayload(body, [fresh, g.secret], now))).toBe(200);
    expect(await post(body, signWebhookPayload(body, [fresh], now))).toBe(400);
    expect(await post(body, signWebhookPayload(body, [g.secret], now - 301))).toBe(400);
    expect(await post(body.replace('ceased', 'created'), signWebhookPayload(body, [g.secret], now))).toBe(400);
    expect(await post(body, 'v1=deadbeef')).toBe(400);
  });
});
