// Issue 41's done-when, in Chromium: a Victorian prescriber chooses a monitored medicine
// (oxycodone, S8) for a patient whose HI fixture says red; the SafeScript notifications are
// shown, the prescription cannot be written until each is opened and they are acknowledged, and
// the audit trail holds the check (level, no text) and the acknowledgement. The form works
// without JavaScript: the browser runs with it turned off.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { call, useTestApp } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import { givenClinic } from '../prescriptions/prescriptions-given.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from './browser-given.ts';
import { mintSsoUrl } from './portal-given.ts';

const run = browserTestsRun();
const port = run ? await freeLoopbackPort() : 0;
const RED_TEXTS = ['Opioid prescriptions from three prescribers in the last 60 days', 'Daily oral morphine equivalent above 100 mg'];
const rita = {
  ihi_number: '8003608166690503', ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED', family_name: 'Redflag', given_name: 'Rita', date_of_birth: '1970-03-01', sex: 'F',
  rtpm: { level: 'red', notifications: [{ severity: 'red', text: RED_TEXTS[0], reference: 'SS-R-0001' }, { severity: 'amber', text: RED_TEXTS[1], reference: 'SS-A-0002' }] },
} as const;
const fixtureFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'erx-rtpm-')), 'hi-fixtures.json');
fs.writeFileSync(fixtureFile, JSON.stringify({ patients: [rita] }));

describe.runIf(run)('a monitored medicine in Chromium (Victoria, SafeScript red)', () => {
  let browser: Browser;
  const { t, c, patient } = useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${port}`, ERX_HI_FIXTURES: fixtureFile, ERX_RTPM: 'simulator' } }, async (t) => {
    const c = await givenClinic(t);
    const created = await call(t, 'POST', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients`, c.headers, patientBody(c.g, rita as never, { ihi_number: rita.ihi_number }));
    if (created.statusCode !== 201) throw new Error(`patient: ${created.statusCode} ${created.body}`);
    await t.app.listen({ port, host: '127.0.0.1' });
    return { c, patient: { id: created.json().data.platform_patient_id as string } };
  });
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('shows the notifications, refuses to write until each is opened and acknowledged, and audits the check and the acknowledgement', async () => {
    const page = await (await browser.newContext({ javaScriptEnabled: false, viewport: { width: 960, height: 1000 } })).newPage();
    const seq = await lastAuditSeq(t);
    await page.goto(await mintSsoUrl(t, c.g, `/dashboard/patients/${patient.id}/prescriptions?search=oxycodone`));
    await page.selectOption('#medicine', 'pbs:2622K');
    await page.selectOption('#schedule_number', 'S8');
    await page.fill('#quantity', '10');
    await page.check('#prescription_type_paper');
    const create = async () => (await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[value="create"]')]))[0];

    // Choosing it and sending the form runs the check: red, two notifications, their text not shown until opened.
    expect((await create()).status()).toBe(200);
    await expect.poll(() => page.locator('#rtpm-result').textContent()).toMatch(/Result: Red, 2 notifications/);
    expect(await page.locator('.rtpm').textContent()).not.toContain(RED_TEXTS[0]);
    expect(await page.isDisabled('#rtpm_acknowledge')).toBe(true);
    // The form kept what was typed.
    expect(await page.inputValue('#quantity')).toBe('10');

    // Not written before the notifications are opened.
    expect((await create()).status()).toBe(422);
    expect(await page.locator('#rtpm-error').textContent()).toBe('Open each notification before you acknowledge them.');

    for (const index of [0, 1]) {
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click(`button[value="rtpm-open-${index}"]`)]);
      expect(await page.locator('.rtpm').textContent()).toContain(RED_TEXTS[index]);
    }
    // Opened, not yet acknowledged: still refused.
    expect((await create()).status()).toBe(422);
    expect(await page.locator('#rtpm-error').textContent()).toMatch(/^Tick the box to acknowledge the SafeScript notifications/);

    await page.check('#rtpm_acknowledge');
    const written = await create();
    expect(written.status()).toBe(303);
    await page.waitForURL(/\/prescriptions\/[A-Z0-9]{18}\?created=1$/);
    expect(await page.locator('body').textContent()).toContain('Prescription created.');

    const entries = await auditEntriesAfter(t, seq);
    const rtpm = entries.filter((entry) => entry.action.startsWith('rtpm.'));
    expect(rtpm.map((entry) => [entry.action, entry.outcome, entry.detail?.rtpmOutcome ?? null, entry.detail?.rtpmLevel])).toEqual([
      ['rtpm.check', 'success', 'checked', 'red'],
      ['rtpm.acknowledge', 'success', null, 'red'],
    ]);
    expect(rtpm.every((entry) => entry.patient_id === patient.id && entry.target_user_id === c.g.userId)).toBe(true);
    // The trail holds no notification text.
    expect(JSON.stringify(entries)).not.toContain(RED_TEXTS[0]);
    expect(entries.some((entry) => entry.action === 'prescription.create' && entry.outcome === 'success')).toBe(true);
  });
});
