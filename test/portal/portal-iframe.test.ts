// The embedded portal in a partner's page: a page served from a second local origin frames an
// SSO link to /embed/...; it loads (and prescribes, its session cookie working inside the
// frame) when the partner lists that origin, and Chromium refuses to show it when the partner
// lists other origins or none.
import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPartnerFrameOrigins } from '../../src/onboarding/index.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, outboxEvents } from '../prescriptions/prescriptions-given.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from './browser-given.ts';
import { mintSsoUrl } from './portal-given.ts';

const run = browserTestsRun();
const portalPort = run ? await freeLoopbackPort() : 0;

/** The attribute docs/portal/embedding.md recommends for the iframe. */
const IFRAME_ALLOW = 'clipboard-write; publickey-credentials-get *; publickey-credentials-create *';

/** The partner's own site: each page it serves frames the portal link it was given. */
async function startPartnerSite(): Promise<{ origin: string; pageFraming(url: string): string; close(): Promise<void> }> {
  const frames = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const src = frames.get(request.url ?? '');
    if (!src) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Partner PMS</title><h1>Partner PMS</h1><iframe title="Prescribing" src="${src.replace(/&/g, '&amp;')}" allow="${IFRAME_ALLOW}" width="900" height="1000"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    pageFraming(url) {
      const path = `/patient-${frames.size}`;
      frames.set(path, url);
      return `${origin}${path}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.runIf(run)('the portal inside a partner\'s iframe', () => {
  let browser: Browser;
  let partnerSite: Awaited<ReturnType<typeof startPartnerSite>>;

  const { t, c } = useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${portalPort}` } }, async (t) => {
    const c = await givenClinic(t);
    await t.app.listen({ port: portalPort, host: '127.0.0.1' });
    return { c };
  });
  beforeAll(async () => {
    [browser, partnerSite] = await Promise.all([launchChromium(), startPartnerSite()]);
  });
  afterAll(async () => {
    await browser?.close();
    await partnerSite?.close();
  });

  /** Opens a partner page framing a fresh SSO link to `path`; records what Chromium blocked and why. */
  async function openFramed(path: string): Promise<{ page: Page; refusals: string[]; blocked: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const refusals: string[] = [];
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('violates the following Content Security Policy directive')) refusals.push(message.text());
    });
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText === 'net::ERR_BLOCKED_BY_RESPONSE') blocked.push(new URL(request.url()).pathname);
    });
    await page.goto(partnerSite.pageFraming(await mintSsoUrl(t, c.g, path)));
    return { page, refusals, blocked };
  }

  it('loads the form when the partner lists the framing origin, and prescribes inside the frame', async () => {
    await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, ['https://other.example', partnerSite.origin]);
    const { page, refusals, blocked } = await openFramed(`/embed/patients/${c.patientId}/prescriptions?reserved_1=framed`);
    const frame = page.frameLocator('iframe[title="Prescribing"]');
    await frame.getByLabel('Medicine', { exact: true }).selectOption('pbs:8214K');
    await frame.getByLabel('Quantity', { exact: true }).fill('30');
    await frame.getByLabel('Send token to', { exact: true }).selectOption('patient-email');
    await frame.getByRole('button', { name: 'Create prescription', exact: true }).click();
    const scid = (await frame.getByLabel('SCID', { exact: true }).textContent())!.trim();
    expect(scid).toMatch(/^[A-Z0-9]{18}$/);
    expect(await frame.locator('nav').count()).toBe(0);
    expect(refusals).toEqual([]);
    expect(blocked).toEqual([]);
    const created = (await outboxEvents(t, c.g.organizationId)).find((e) => (e.envelope.data as { scid: string }).scid === scid);
    expect(created?.envelope).toMatchObject({ event_type: 'prescription.created', metadata: { reserved_1: 'framed' } });
    await page.context().close();
  });

  it.each([
    ['lists only other origins', ['https://other.example']],
    ['lists none', []],
  ])('is refused by the browser when the partner %s', async (_case, origins) => {
    await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, origins);
    const { page, refusals, blocked } = await openFramed(`/embed/patients/${c.patientId}/prescriptions`);
    await expect.poll(() => blocked.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(blocked[0]).toMatch(/^\/(auth\/sso|embed\/patients\/)/);
    const ancestors = origins.length > 0 ? origins.join(' ') : "'none'";
    await expect.poll(() => refusals.join('\n')).toContain(`"frame-ancestors ${ancestors}"`);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await expect.poll(() => frame.url()).toBe('chrome-error://chromewebdata/');
    expect(await page.frameLocator('iframe').getByLabel('Medicine', { exact: true }).count()).toBe(0);
    await page.context().close();
  });
});
