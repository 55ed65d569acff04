// A PBS authority-required item prescribed in Chromium by keyboard alone: the prescriber finds
// it by name, is refused without its approval number (the message beside the field, which has
// the focus and is described by it), writes it with one, and the partner reads every field back
// through the API.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { givenPbsItems, PBS_TEST_ITEMS } from '../prescriptions/pbs-given.ts';
import { givenClinic, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from './browser-given.ts';
import { mintSsoUrl } from './portal-given.ts';

const run = browserTestsRun();
const port = run ? await freeLoopbackPort() : 0;
const authority = PBS_TEST_ITEMS.authority;
const AUTHORITY_LABEL = 'Authority approval number or streamlined code';

describe.runIf(run)('a PBS authority item in Chromium, by keyboard alone', () => {
  let browser: Browser;

  const { t, c } = useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${port}` } }, async (t) => {
    const c = await givenClinic(t);
    await givenPbsItems(t);
    await t.app.listen({ port, host: '127.0.0.1' });
    return { c };
  });
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim());

  async function tabTo(page: Page, target: string): Promise<void> {
    for (let presses = 0; presses < 60; presses++) {
      if ((await activeId(page)) === target) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${target}`);
  }

  /** Arrow keys down the focused select until it holds `value`. */
  async function arrowTo(page: Page, value: string): Promise<void> {
    for (let presses = 0; presses < 60; presses++) {
      if ((await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)) === value) return;
      await page.keyboard.press('ArrowDown');
    }
    throw new Error(`the select never reached ${value}`);
  }

  it('finds it by name, is refused without the approval number, writes it with one, and the partner reads it back', async () => {
    const page = await (await browser.newContext({ viewport: { width: 960, height: 900 } })).newPage();
    await page.goto(await mintSsoUrl(t, c.g, `/dashboard/patients/${c.patientId}/prescriptions`));

    // Find it by name: the search field, then Enter (the form's first button is Search).
    await tabTo(page, 'search');
    await page.keyboard.type(authority.drug_name);
    await Promise.all([page.waitForLoadState('load'), page.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Enter')]);
    await page.waitForSelector('#medicine');
    await tabTo(page, 'medicine');
    await arrowTo(page, `pbs:${authority.pbs_code}`);
    await tabTo(page, 'quantity');
    await page.keyboard.type('28');
    await tabTo(page, 'Create prescription');
    const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Enter')]);
    expect(refused.status()).toBe(422);
    await page.waitForSelector('#pbsdva_authority_number-error');

    // Refused beside the field, which has the focus and is described by the message.
    const field = page.getByLabel(AUTHORITY_LABEL, { exact: true });
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const message = 'Authority approval number or streamlined code is required: 2002L is an authority-required PBS item; enter its authority approval number';
    expect(await page.locator('#pbsdva_authority_number-error').textContent()).toBe(message);
    expect((await field.getAttribute('aria-describedby'))!.split(' ')).toContain('pbsdva_authority_number-error');
    await expect.poll(() => activeId(page)).toBe('pbsdva_authority_number');
    expect(await prescriptionsClient(t, c).list().then((r) => r.json().data.prescriptions.length)).toBe(0);

    // Written with its approval number: typed where the focus already is.
    await page.keyboard.type('A7654321');
    await tabTo(page, 'annotations');
    await page.keyboard.type('Original pack only');
    await tabTo(page, 'brand_substitution_not_allowed');
    await page.keyboard.press('Space');
    await tabTo(page, 'Create prescription');
    await Promise.all([page.waitForURL(/\/prescriptions\/[A-Z0-9]{18}\?created=1$/), page.keyboard.press('Enter')]);
    const scid = (await page.getByLabel('SCID', { exact: true }).textContent())!.trim();

    // The partner reads every field back.
    const read = (await prescriptionsClient(t, c).read(scid)).json().data.prescription;
    expect(read).toEqual({
      prescription_type: 'ELECTRONIC',
      url: expect.stringMatching(/\/tokens\//),
      scid,
      status: 'Active',
      created_date: t.clock.now().toISOString(),
      item_name: authority.drug_name,
      item_strength: authority.strength,
      item_form: authority.form,
      pbs_code: authority.pbs_code,
      pbsdva_authority_number: 'A7654321',
      quantity: '28',
      number_of_repeats_authorised: '0',
      annotations: 'Original pack only',
      brand_substitution_not_allowed: true,
      prescriber_script_number: '1',
      prescriber: { given_name: 'Anna', family_name: 'Smith', user_id: c.g.userId },
      custom_drug_details: {},
      delivery: { method: 'SMS', recipient_type: 'PATIENT', destination: '0412345678' },
      dispensing: { supplies_dispensed: 0, repeats_remaining: 0, last_dispensed_at: null },
      legal_metadata: {
        conformance_id: 'ERX-SANDBOX-NOT-CONFORMANT',
        prescription_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        prescriber_hpii: expect.stringMatching(/^800361\d{10}$/),
        organization_hpio: expect.stringMatching(/^800362\d{10}$/),
      },
    });
    await page.context().close();
  });
});
