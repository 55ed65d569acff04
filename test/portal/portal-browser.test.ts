// The portal in a real browser (Chromium through playwright-core), served by a test app on
// 127.0.0.1: prescribing from an SSO link by keyboard alone, the accessible names partners'
// tests rely on, the confirmation (and the two screenshots of docs/portal/prescription-form.md); a used or expired link;
// a form posted without its CSRF token; prefill values out of range.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { givenClinic, storedPrescription } from '../prescriptions/prescriptions-given.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium, takeScreenshot } from './browser-given.ts';
import { mintSsoUrl } from './portal-given.ts';

const run = browserTestsRun();
const port = run ? await freeLoopbackPort() : 0;

describe.runIf(run)('the portal in Chromium', () => {
  let browser: Browser;

  const { t, c } = useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${port}` } }, async (t) => {
    const c = await givenClinic(t);
    await t.app.listen({ port, host: '127.0.0.1' });
    return { c };
  });
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  /** A fresh browser context (no cookies) with a page. */
  async function freshPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 960, height: 900 } });
    return context.newPage();
  }

  const prescriptionCount = async () => (await t.deps.database.selectFrom('prescriptions').select('id').execute()).length;
  const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim());

  /** Presses Tab until the element with this id (or text) has focus; fails after 30 presses. */
  async function tabTo(page: Page, target: string): Promise<void> {
    for (let presses = 0; presses < 30; presses++) {
      if ((await activeId(page)) === target) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${target}`);
  }

  it('prescribes from an SSO link with the keyboard alone, and confirms with the SCID, the medicine, the delivery and the QR code', async () => {
    const page = await freshPage();
    const redirectPath = `/dashboard/patients/${c.patientId}/prescriptions?reserved_1=abc&repeats=1`;
    const landed = await page.goto(await mintSsoUrl(t, c.g, redirectPath));
    expect(landed?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/patients/${c.patientId}/prescriptions`);
    await expect.poll(() => page.getByText('reserved_1').isVisible()).toBe(true);
    expect(await page.locator('.reserved dd').textContent()).toBe('abc');

    // The medicine is found by name: a search from the keyboard (Enter in the search field
    // searches), then the tab order: the medicine, each field in turn, the button; every one labelled.
    await tabTo(page, 'search');
    await page.keyboard.type('amoxicillin caps');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(await page.locator('#pbs-found-title + ul > li').count()).toBe(1);
    await tabTo(page, 'medicine');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Medicine', { exact: true }).inputValue()).toBe('pbs:2622B');
    const typed: Array<[string, string, string]> = [
      ['quantity', 'Quantity', '20'],
      ['repeats', 'Repeats', ''],
      ['repeat_interval_days', 'Repeat interval (days)', '14'],
      ['patient_instructions', 'Patient instructions', 'One capsule three times a day'],
      ['doctor_instructions', 'Doctor instructions', 'Review in two weeks'],
    ];
    for (const [id, label, text] of typed) {
      // The PBS and detail fields between them are left as they are.
      await tabTo(page, id);
      if (text !== '') await page.keyboard.type(text);
      expect(await page.getByLabel(label, { exact: true }).getAttribute('id')).toBe(id);
    }
    await tabTo(page, 'send_to');
    expect(await page.getByLabel('Send token to', { exact: true }).inputValue()).toBe('patient-sms');
    expect(await page.getByLabel('Repeats', { exact: true }).inputValue()).toBe('1');
    await takeScreenshot(page, 'portal-form.png');

    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe('Create prescription');
    await Promise.all([page.waitForURL(/\/prescriptions\/[A-Z0-9]{18}\?created=1$/), page.keyboard.press('Enter')]);

    const scid = (await page.getByLabel('SCID', { exact: true }).textContent())!.trim();
    expect(scid).toMatch(/^[A-Z0-9]{18}$/);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Prescription created');
    expect(await page.locator('dd', { hasText: 'Amoxicillin 500 mg (as trihydrate) Capsule' }).count()).toBe(1);
    expect(await page.getByLabel('Token sent by').textContent()).toBe('SMS to the patient (0412345678)');
    expect(await page.locator('figure.qr-code svg').isVisible()).toBe(true);
    await takeScreenshot(page, 'portal-confirmation.png');
    expect(await storedPrescription(t, scid)).toMatchObject({ quantity: '20', number_of_repeats_authorised: '1', repeat_intervals: '14', doctor_notes: 'Review in two weeks' });

    // Manage: each change is confirmed first.
    await page.getByRole('button', { name: 'Cease prescription', exact: true }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Cease prescription?');
    expect((await storedPrescription(t, scid))?.status).toBe('Active');
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(/\?done=cease$/);
    expect(await page.getByLabel('Status', { exact: true }).textContent()).toBe('Ceased');
    await page.context().close();
  });

  it('shows an error page and opens no session for a used or an expired SSO link', async () => {
    const url = await mintSsoUrl(t, c.g, '/dashboard');
    const first = await freshPage();
    expect((await first.goto(url))?.status()).toBe(200);
    expect((await first.context().cookies()).map((cookie) => cookie.name)).toEqual(['erx_portal_session']);

    const again = await freshPage();
    const reused = await again.goto(url);
    expect(reused?.status()).toBe(401);
    expect(await again.getByRole('heading', { level: 1 }).textContent()).toBe('Sign-in link refused');
    expect(await again.textContent('main')).toContain('already been used');
    expect(await again.context().cookies()).toEqual([]);
    expect((await again.goto(`http://127.0.0.1:${port}/dashboard`))?.status()).toBe(401);

    const stale = await mintSsoUrl(t, c.g, '/dashboard');
    t.clock.advanceSeconds(301);
    const late = await freshPage();
    expect((await late.goto(stale))?.status()).toBe(401);
    expect(await late.textContent('main')).toContain('has expired');
    expect(await late.context().cookies()).toEqual([]);
    for (const page of [first, again, late]) await page.context().close();
  });

  it('refuses a form posted without its CSRF token (403) and creates nothing', async () => {
    const page = await freshPage();
    await page.goto(await mintSsoUrl(t, c.g, `/embed/patients/${c.patientId}/prescriptions`));
    await page.getByLabel('Medicine', { exact: true }).selectOption('pbs:1234X');
    await page.getByLabel('Quantity', { exact: true }).fill('10');
    await page.locator('input[name="_csrf"]').evaluate((input) => input.remove());
    const before = await prescriptionCount();
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Create prescription' }).click()]);
    expect(response.status()).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Form refused');
    expect(await prescriptionCount()).toBe(before);
    await page.context().close();
  });

  it('ignores prefill values out of range, with the warning on the form', async () => {
    const page = await freshPage();
    const query = 'quantity=0&repeats=abc&repeats_interval=400&patient_instructions=Take%20with%20food';
    await page.goto(await mintSsoUrl(t, c.g, `/embed/patients/${c.patientId}/prescriptions?${query}`));
    const warnings = page.getByRole('status').filter({ hasText: 'Some prefilled values were not used' });
    expect(await warnings.locator('li').allTextContents()).toEqual([
      'quantity "0" was ignored: it must be a whole number from 1 to 999.',
      'repeats "abc" was ignored: it must be a whole number from 0 to 99.',
      'repeats_interval "400" was ignored: it must be a whole number from 1 to 365.',
    ]);
    for (const label of ['Quantity', 'Repeats', 'Repeat interval (days)']) expect(await page.getByLabel(label, { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Patient instructions', { exact: true }).inputValue()).toBe('Take with food');
    expect(await page.locator('nav').count()).toBe(0);
    await page.context().close();
  });
});
