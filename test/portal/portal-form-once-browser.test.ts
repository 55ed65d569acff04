// A form submits once, in Chromium: a double click on Create prescription (or on Confirm of a
// cease) and a resubmitted page (the browser sending the same form's POST again) make one
// prescription and one event, and the browser lands on the prescription the first post made.
// So does the form sent again after Back: its address carries its id, so Back returns to it.
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { givenClinic, outboxEvents, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from './browser-given.ts';
import { mintSsoUrl } from './portal-given.ts';

const run = browserTestsRun();
const port = run ? await freeLoopbackPort() : 0;
const CREATED = /\/prescriptions\/([A-Z0-9]{18})\?created=1$/;

describe.runIf(run)('a form submits once, in Chromium', () => {
  let t: TestApp;
  let c: Clinic;
  let browser: Browser;

  useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${port}` } }, async (app) => {
    t = app;
    c = await givenClinic(t);
    await t.app.listen({ port, host: '127.0.0.1' });
    return {};
  });
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  const formPath = () => `/dashboard/patients/${c.patientId}/prescriptions`;
  const counts = async () => ({
    prescriptions: (await t.deps.database.selectFrom('prescriptions').select('id').where('organization_id', '=', c.g.organizationId).execute()).length,
    created: (await outboxEvents(t, c.g.organizationId)).filter((e) => e.event_type === 'prescription.created').length,
  });

  /** A signed-in page on the filled new-prescription form, and the POSTs it sends from now on. */
  async function filledForm(): Promise<{ page: Page; posts: Request[] }> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(await mintSsoUrl(t, c.g, formPath()));
    await page.getByLabel('Medicine', { exact: true }).selectOption('pbs:2622B');
    await page.getByLabel('Quantity', { exact: true }).fill('20');
    const posts: Request[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request);
    });
    return { page, posts };
  }

  /** Waits for the page to show `url` loaded (the second click of a double click may abort the first navigation). */
  async function landedOn(page: Page, url: RegExp): Promise<void> {
    await expect.poll(() => page.url(), { timeout: 10_000 }).toMatch(url);
    await page.waitForLoadState('load');
  }

  it('a double click on Create prescription creates one prescription and one event, and shows it', async () => {
    const before = await counts();
    const { page, posts } = await filledForm();
    await page.getByRole('button', { name: 'Create prescription' }).dblclick();
    await landedOn(page, CREATED);
    expect(posts.length).toBeGreaterThanOrEqual(1); // Chromium sends one POST or two; either way, one prescription
    await expect.poll(counts).toEqual({ prescriptions: before.prescriptions + 1, created: before.created + 1 });
    const [, scid] = CREATED.exec(page.url())!;
    expect(await page.locator('.scid').first().textContent()).toBe(scid);
  });

  it('the same form sent again (the browser repeating its POST) creates nothing and lands on the first prescription', async () => {
    const before = await counts();
    const { page, posts } = await filledForm();
    await Promise.all([page.waitForURL(CREATED), page.getByRole('button', { name: 'Create prescription' }).click()]);
    const first = page.url();
    const post = posts[0]!;
    const again = await page.request.post(post.url(), { headers: post.headers(), data: post.postData() ?? '', maxRedirects: 0 });
    expect(again.status()).toBe(303);
    expect(new URL(again.headers().location!, first).href).toBe(first);
    expect(await counts()).toEqual({ prescriptions: before.prescriptions + 1, created: before.created + 1 });
  });

  it('Back after creating returns to the same form: sending it again creates nothing and shows the first prescription', async () => {
    const before = await counts();
    const { page } = await filledForm();
    const formId = await page.locator('input[name="form_id"]').inputValue();
    expect(new URL(page.url()).searchParams.get('form_id')).toBe(formId);
    await Promise.all([page.waitForURL(CREATED), page.getByRole('button', { name: 'Create prescription' }).click()]);
    const [, scid] = CREATED.exec(page.url())!;
    await page.goBack();
    await page.getByRole('button', { name: 'Create prescription' }).waitFor();
    expect(await page.locator('input[name="form_id"]').inputValue()).toBe(formId);
    expect(await page.getByRole('heading', { name: 'This form was already sent' }).isVisible()).toBe(true);
    // Chromium restores what was typed; set it again in case it does not, the form id decides.
    await page.getByLabel('Medicine', { exact: true }).selectOption('pbs:2622B');
    await page.getByLabel('Quantity', { exact: true }).fill('20');
    await Promise.all([page.waitForURL(CREATED), page.getByRole('button', { name: 'Create prescription' }).click()]);
    expect(CREATED.exec(page.url())![1]).toBe(scid);
    expect(await page.locator('.scid').first().textContent()).toBe(scid);
    expect(await counts()).toEqual({ prescriptions: before.prescriptions + 1, created: before.created + 1 });
  });

  it('a double click on Confirm ceases once', async () => {
    const { page } = await filledForm();
    await Promise.all([page.waitForURL(CREATED), page.getByRole('button', { name: 'Create prescription' }).click()]);
    const [, scid] = CREATED.exec(page.url())!;
    await page.getByRole('button', { name: 'Cease prescription', exact: true }).click();
    await page.getByRole('button', { name: 'Confirm', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Confirm', exact: true }).dblclick();
    await landedOn(page, /\?done=cease$/);
    const events = (await outboxEvents(t, c.g.organizationId)).filter((e) => (e.envelope.data as { scid: string }).scid === scid).map((e) => e.event_type);
    expect(events).toEqual(['prescription.created', 'prescription.ceased']);
    expect(await page.getByText('This prescription is Ceased').isVisible()).toBe(true);
  });
});
