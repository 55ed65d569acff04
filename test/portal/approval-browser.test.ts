// The approval queue in Chromium: a queue manager, signed in from an SSO link, prepares a
// prescription for the clinic's prescriber on the new-prescription form; nothing reaches the
// partner's webhook receiver while it waits (no event exists); the prescriber, in the embedded
// queue (/embed/prescriptions/approval), opens and approves it; only then does the receiver get
// prescription.created, signed with the partner's secret, for the SCID the approval made.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setWebhookEndpoint, startWebhookDispatcher } from '../../src/webhooks/index.ts';
import { signatureOf } from '../../src/webhooks/webhook-signature.ts';
import { type RunningDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic, outboxEvents } from '../prescriptions/prescriptions-given.ts';
import { startReceiver, type Receiver } from '../webhooks/webhook-receivers.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from './browser-given.ts';
import { mintSsoUrl } from './portal-given.ts';
import { totpCode } from '../mfa/mfa-given.ts';

const run = browserTestsRun();
const port = run ? await freeLoopbackPort() : 0;

describe.runIf(run)('the approval queue in Chromium', () => {
  let browser: Browser;
  let receiver: Receiver;
  let dispatcher: RunningDispatcher;

  const { t, c, made } = useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${port}` } }, async (t) => {
    const c = await givenClinic(t);
    receiver = await startReceiver();
    const endpoint = await setWebhookEndpoint(t.features.webhooks, c.g.partnerId, receiver.url);
    const manager = await givenUser(t, c.g.organizationId, ['rx_queue_manager']);
    await t.app.listen({ port, host: '127.0.0.1' });
    return { c, made: { managerId: manager.user_id, secret: endpoint.webhook_secret! } };
  });
  beforeAll(async () => {
    browser = await launchChromium();
    dispatcher = startWebhookDispatcher(t.features.webhooks);
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await browser?.close();
    await receiver?.close();
  });

  async function freshPage(): Promise<Page> {
    return (await browser.newContext({ viewport: { width: 960, height: 1000 } })).newPage();
  }

  const deliveredEvents = () => receiver.requests.map((r) => JSON.parse(r.body) as { event_type: string; data: { scid: string; user_id: string } });

  it('prepare, then approve in the embedded queue: the receiver gets prescription.created only after the approval', async () => {
    const managerPage = await freshPage();
    await managerPage.goto(await mintSsoUrl(t, c.g, `/dashboard/patients/${c.patientId}/prescription-drafts`, made.managerId));
    await managerPage.getByLabel('For prescriber', { exact: true }).selectOption(c.g.userId);
    await managerPage.getByLabel('Medicine', { exact: true }).selectOption('pbs:2622B');
    await managerPage.getByLabel('Quantity', { exact: true }).fill('20');
    await managerPage.getByLabel('Repeats', { exact: true }).fill('1');
    await managerPage.getByLabel('Send token to', { exact: true }).selectOption('patient-sms');
    await managerPage.getByRole('button', { name: 'Prepare for approval', exact: true }).click();
    await managerPage.waitForURL(/\/dashboard\/prescriptions\/approval\/[0-9a-f-]{36}\?prepared=1$/);
    expect(await managerPage.getByLabel('Draft status', { exact: true }).textContent()).toBe('waiting');

    // Waiting: no event exists, so nothing can be delivered.
    expect(await outboxEvents(t, c.g.organizationId)).toEqual([]);
    expect(receiver.requests).toEqual([]);

    const prescriberPage = await freshPage();
    await prescriberPage.goto(await mintSsoUrl(t, c.g, '/embed/prescriptions/approval'));
    expect(new URL(prescriberPage.url()).pathname).toBe('/embed/prescriptions/approval');
    await prescriberPage.getByRole('link', { name: /Wood/ }).first().click();
    // Approving is a step-up: a prescriber without a factor sets one up first (an authenticator
    // app, its code computed here), then returns to the draft and approves.
    await prescriberPage.getByRole('button', { name: 'Approve and create prescription', exact: true }).click();
    await prescriberPage.waitForURL((url) => url.pathname === '/embed/mfa');
    const key = (await prescriberPage.getByLabel('Authenticator key').textContent())!.trim();
    await prescriberPage.getByLabel('Code from the app').fill(totpCode(key, t.clock.now()));
    await prescriberPage.getByRole('button', { name: 'Confirm authenticator app' }).click();
    await prescriberPage.getByRole('link', { name: 'Continue' }).click();
    await prescriberPage.waitForURL((url) => url.pathname.startsWith('/embed/prescriptions/approval/'));
    await prescriberPage.getByRole('button', { name: 'Approve and create prescription', exact: true }).click();
    await prescriberPage.waitForURL(/\/embed\/patients\/[0-9a-f-]+\/prescriptions\/[A-Z0-9]{18}\?created=1$/);
    const scid = (await prescriberPage.getByLabel('SCID', { exact: true }).textContent())!.trim();

    await expect.poll(() => deliveredEvents().length, { timeout: 10_000 }).toBe(1);
    expect(deliveredEvents()[0]).toMatchObject({ event_type: 'prescription.created', data: { scid, user_id: c.g.userId } });
    const request = receiver.requests[0]!;
    const timestamp = /t=(\d+)/.exec(String(request.headers['x-webhook-signature']))![1]!;
    expect(String(request.headers['x-webhook-signature'])).toContain(`v1=${signatureOf(made.secret, Number(timestamp), request.body)}`);

    await managerPage.reload();
    expect(await managerPage.getByLabel('Draft status', { exact: true }).textContent()).toBe('approved');
    expect(await managerPage.getByText(scid).count()).toBeGreaterThan(0);
  });
});
