// End to end, as a partner following docs/portal/index.md ("Try it"): `erx sandbox seed`, `erx webhooks
// set-endpoint` to a receiver on 127.0.0.1, `erx serve` (whose dispatcher delivers), a patient
// through the API, then POST /v1/sso with reserved_1=abc; Chromium opens redirect_url and
// prescribes; the receiver gets prescription.created carrying metadata.reserved_1 "abc" with a
// signature the stripe package verifies; the partner reads the prescription by SCID; cease,
// cancel (another prescription) and reissue each produce their signed event.
import type { Browser, Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, runErxJson, spawnServer, type CliEnvironment } from '../cli/cli-helpers.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from '../webhooks/webhook-receivers.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from './browser-given.ts';

const run = browserTestsRun();
const stripe = new Stripe('sk_test_unused');

/** A delivery as the receiver got it: raw body, signature header, and the event it carries. */
interface Delivery {
  raw: string;
  signature: string;
  userAgent: string;
  event: { event_type: string; event_id: string; data: { scid: string; user_id: string; patient_id: string }; metadata: Record<string, string | null> };
}

function deliveryOf(request: ReceivedRequest): Delivery {
  return { raw: request.body, signature: String(request.headers['x-webhook-signature']), userAgent: String(request.headers['user-agent']), event: JSON.parse(request.body) };
}

describe.runIf(run)('SSO to a signed webhook, end to end', () => {
  let cli: CliEnvironment;
  let server: Awaited<ReturnType<typeof spawnServer>>;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let seed: { partner_id: string; partner_secret: string; organization_id: string; organization_secret: string; prescriber: { user_id: string } };
  let webhookSecret: string;
  let api: (method: string, path: string, body?: unknown) => Promise<Response>;
  let patientId: string;

  const credentialHeaders = () => ({
    'content-type': 'application/json',
    'x-partner-id': seed.partner_id,
    'x-partner-secret': seed.partner_secret,
    'x-organization-id': seed.organization_id,
    'x-organization-secret': seed.organization_secret,
    'x-user-id': seed.prescriber.user_id,
  });

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    cli = createCliEnvironment({ PORT: String(port), HOST: '127.0.0.1' });
    receiver = await startReceiver();
    seed = await runErxJson(cli.env, ['sandbox', 'seed']);
    webhookSecret = (await runErxJson(cli.env, ['webhooks', 'set-endpoint', seed.partner_id, receiver.url])).webhook_secret;
    [server, browser] = await Promise.all([spawnServer(cli.env), launchChromium()]);
    const base = server.url;
    const token = await fetch(`${base}/v1/token`, { method: 'POST', headers: credentialHeaders(), body: JSON.stringify({ grantType: 'client_credentials', scope: ['create:patient', 'read:patient_prescription'] }) });
    const bearer = { authorization: `Bearer ${((await token.json()) as { data: { accessToken: string } }).data.accessToken}`, 'x-organization-secret': seed.organization_secret, 'content-type': 'application/json' };
    api = (method, path, body) => fetch(`${base}${path}`, { method, headers: bearer, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect((await api('GET', `/v1/organizations/${seed.organization_id}/validate`)).status).toBe(200);
    const patient = await api('POST', `/v1/organizations/${seed.organization_id}/users/${seed.prescriber.user_id}/patients`, {
      partner_patient_id: 'PMS-1001', partner_id: seed.partner_id, given_name: 'Jessica', family_name: 'Wood', date_of_birth: '1985-02-14', sex: 'F',
      medicare_card_number: '2950141861', medicare_irn: '1', phone: '0412345678', email: 'j.wood@example.com',
    });
    patientId = ((await patient.json()) as { data: { platform_patient_id: string } }).data.platform_patient_id;
    page = await (await browser.newContext()).newPage();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    await receiver?.close();
    await cli?.cleanup();
  });

  const deliveries = () => receiver.requests.map(deliveryOf);

  /** The delivery of `type` for `scid`, once it arrived (the dispatcher delivers right after the commit). */
  async function deliveryFor(type: string, scid: string): Promise<Delivery> {
    const matches = (d: Delivery) => d.event.event_type === type && d.event.data.scid === scid;
    await expect.poll(() => deliveries().some(matches), { timeout: 10_000 }).toBe(true);
    return deliveries().find(matches)!;
  }

  /** Asserts the delivery is signed with the partner's secret and carries the SSO link's reserved_1. */
  function expectSignedWithReserved(delivery: Delivery): void {
    expect(stripe.webhooks.constructEvent(delivery.raw, delivery.signature, webhookSecret)).toEqual(delivery.event);
    expect(delivery.userAgent).toBe('Parchment-Webhooks/1.0');
    expect(delivery.event.metadata).toEqual({ reserved_1: 'abc', reserved_2: null, reserved_3: null });
    expect(delivery.event.data).toMatchObject({ patient_id: patientId, user_id: seed.prescriber.user_id });
  }

  async function prescribeInBrowser(medicine: string): Promise<string> {
    await page.getByLabel('Medicine', { exact: true }).selectOption(medicine);
    await page.getByLabel('Quantity', { exact: true }).fill('20');
    // Within every sandbox item's PBS maximum repeats (Cefalexin's is 0).
    await page.getByLabel('Repeats', { exact: true }).fill('0');
    await page.getByLabel('Send token to', { exact: true }).selectOption('patient-sms');
    await page.getByRole('button', { name: 'Create prescription', exact: true }).click();
    return (await page.getByLabel('SCID', { exact: true }).textContent())!.trim();
  }

  async function changeInBrowser(action: 'Cease' | 'Cancel' | 'Reissue'): Promise<void> {
    await page.getByRole('button', { name: `${action} prescription`, exact: true }).click();
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(/\?done=/);
  }

  const readByScid = async (scid: string) =>
    ((await (await api('GET', `/v1/organizations/${seed.organization_id}/users/${seed.prescriber.user_id}/patients/${patientId}/prescriptions/${scid}`)).json()) as {
      data: { prescription: { scid: string; status: string; item_name: string; delivery: { method: string } } };
    }).data.prescription;

  let ceasedScid: string;

  it('prescribes from the SSO link; the partner receives prescription.created with reserved_1 "abc", signed, and reads it by SCID', async () => {
    const sso = await fetch(`${server.url}/v1/sso`, {
      method: 'POST',
      headers: credentialHeaders(),
      body: JSON.stringify({ redirect_path: `/dashboard/patients/${patientId}/prescriptions?reserved_1=abc` }),
    });
    expect(sso.status).toBe(200);
    const { redirect_url: redirectUrl } = ((await sso.json()) as { data: { redirect_url: string } }).data;
    expect(redirectUrl.startsWith(`${server.url}/auth/sso?token=`)).toBe(true);
    await page.goto(redirectUrl);
    ceasedScid = await prescribeInBrowser('pbs:2622B');
    expect(ceasedScid).toMatch(/^[A-Z0-9]{18}$/);
    expectSignedWithReserved(await deliveryFor('prescription.created', ceasedScid));
    expect(await readByScid(ceasedScid)).toMatchObject({ scid: ceasedScid, status: 'Active', item_name: 'Amoxicillin' });
  });

  it('cease: prescription.ceased, signed, with reserved_1', async () => {
    await changeInBrowser('Cease');
    expectSignedWithReserved(await deliveryFor('prescription.ceased', ceasedScid));
    expect((await readByScid(ceasedScid)).status).toBe('Ceased');
  });

  it('cancel, on another prescription: prescription.cancelled, signed, with reserved_1', async () => {
    await page.getByRole('link', { name: /^New prescription for/ }).click();
    const scid = await prescribeInBrowser('pbs:1234X');
    expect(scid).not.toBe(ceasedScid);
    await changeInBrowser('Cancel');
    expectSignedWithReserved(await deliveryFor('prescription.cancelled', scid));
    expect((await readByScid(scid)).status).toBe('Cancelled');
  });

  it('reissue: prescription.reissued for the same SCID, signed, with reserved_1', async () => {
    await page.getByRole('link', { name: /^New prescription for/ }).click();
    const scid = await prescribeInBrowser('pbs:2236Q');
    await page.getByRole('button', { name: 'Reissue prescription', exact: true }).click();
    await page.getByLabel('Send token to', { exact: true }).selectOption('patient-email');
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(/\?done=reissue$/);
    expect((await page.getByLabel('SCID', { exact: true }).textContent())!.trim()).toBe(scid);
    expectSignedWithReserved(await deliveryFor('prescription.reissued', scid));
    expect(await readByScid(scid)).toMatchObject({ status: 'Active', delivery: { method: 'EMAIL' } });
    const types = deliveries().map((d) => d.event.event_type).sort();
    expect(types).toEqual(['prescription.cancelled', 'prescription.ceased', 'prescription.created', 'prescription.created', 'prescription.created', 'prescription.reissued']);
  });
});
