// Issue 39's done-when, in Chromium with a virtual authenticator (CDP WebAuthn domain): in an
// organization that requires MFA, a prescriber arriving by the partner's SSO link enrols a
// passkey, is asked for it at the next sign-in (in /dashboard and inside an /embed iframe of
// another origin), approves a draft only after a fresh factor; a second prescriber uses TOTP
// codes the test computes; a replayed code, a forged or replayed WebAuthn answer, a sixth wrong
// code and a session that skipped the factor are refused; an admin resets a user's factors.
// The portal is served as http://localhost (WebAuthn takes no IP address as RP id); the
// partner's page is another origin of the same site (another port), as in portal-iframe.test.ts.
import http from 'node:http';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrganizationMfaPolicy } from '../../src/mfa/index.ts';
import { setPartnerFrameOrigins } from '../../src/onboarding/index.ts';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic, givenSecondPrescriber } from '../prescriptions/prescriptions-given.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from '../portal/browser-given.ts';
import { mintSsoUrl } from '../portal/portal-given.ts';
import { DRAFT_FIELDS, draftIdOfRedirect, draftFormPath } from '../portal/approval-given.ts';
import { signInEnrolled, totpCode } from './mfa-given.ts';

const run = browserTestsRun();
const port = run ? await freeLoopbackPort() : 0;
const PORTAL = `http://localhost:${port}`;

/** What the docs give partners for their iframe. */
const IFRAME_ALLOW = 'publickey-credentials-get *; publickey-credentials-create *';

async function startPartnerSite(): Promise<{ origin: string; framing(url: string): string; close(): Promise<void> }> {
  const frames = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const src = frames.get(request.url ?? '');
    if (!src) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Partner PMS</title><h1>Partner PMS</h1><iframe title="Prescribing" src="${src.replace(/&/g, '&amp;')}" allow="${IFRAME_ALLOW}" width="900" height="1000"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as { port: number }).port}`;
  return {
    origin,
    framing(url) {
      const path = `/patient-${frames.size}`;
      frames.set(path, url);
      return `${origin}${path}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A browser context whose pages share one virtual platform authenticator (user verification on). */
async function contextWithAuthenticator(browser: Browser): Promise<{ context: BrowserContext; page: Page; credentials(): Promise<unknown[]> }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1100 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { context, page, credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

describe.runIf(run)('prescriber MFA in Chromium', () => {
  let browser: Browser;
  let partnerSite: Awaited<ReturnType<typeof startPartnerSite>>;

  const { t, c, made } = useTestApp({ env: { ERX_PUBLIC_URL: PORTAL } }, async (t) => {
    const c = await givenClinic(t);
    await setOrganizationMfaPolicy(t.features.mfa, c.g.organizationId, 'required');
    const second = await givenSecondPrescriber(t, c);
    const manager = await givenUser(t, c.g.organizationId, ['rx_queue_manager']);
    await t.app.listen({ port, host: '127.0.0.1' });
    return { c, made: { secondId: second, managerId: manager.user_id } };
  });
  beforeAll(async () => {
    [browser, partnerSite] = await Promise.all([launchChromium(), startPartnerSite()]);
  });
  afterAll(async () => {
    await browser?.close();
    await partnerSite?.close();
  });

  const patientPath = () => `/dashboard/patients/${c.patientId}`;
  const sso = (path: string, userId = c.g.userId) => mintSsoUrl(t, c.g, path, userId);

  it('passkey: enrol after the SSO link, asked again at the next sign-in (dashboard and partner iframe), step-up before approving; forged and replayed answers refused', async () => {
    const { page, credentials } = await contextWithAuthenticator(browser);
    // First access by the partner's link: the factor page, not the patient.
    await page.goto(await sso(patientPath()));
    expect(new URL(page.url()).pathname).toBe('/dashboard/mfa');
    await expect(page.getByRole('heading', { name: 'Set up your second factor' }).isVisible()).resolves.toBe(true);
    await page.getByLabel('Name for this passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/mfa/recovery-codes');
    expect(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).toBe(10);
    expect(await credentials()).toHaveLength(1);
    await page.getByRole('link', { name: 'Continue' }).click();
    // The landing's redirect path was kept.
    await page.waitForURL((url) => url.pathname === patientPath());

    // The next sign-in asks for the passkey; the answer the browser sends is kept to replay.
    const answers: Request[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/mfa/passkey/verify')) answers.push(request);
    });
    await page.goto(await sso(patientPath()));
    expect(new URL(page.url()).pathname).toBe('/dashboard/mfa');
    expect(await page.content()).not.toContain('Wood');
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await page.waitForURL((url) => url.pathname === patientPath());
    expect(answers).toHaveLength(1);

    // Replayed: the challenge it answered is spent. Forged: a live challenge, but a signature altered.
    const headers = { 'content-type': 'application/json', 'x-csrf-token': answers[0]!.headers()['x-csrf-token']! };
    const replayed = await page.request.post(`${PORTAL}/dashboard/mfa/passkey/verify`, { headers, data: answers[0]!.postData()! });
    expect(replayed.status()).toBe(400);
    expect((await replayed.json()).error).toBe('challenge_expired');
    const options = await page.request.post(`${PORTAL}/dashboard/mfa/passkey/options`, { headers, data: '{}' });
    expect(options.status()).toBe(200);
    const forgedBody = JSON.parse(answers[0]!.postData()!) as { response: { response: { signature: string } } };
    const signature = Buffer.from(forgedBody.response.response.signature, 'base64url');
    signature[signature.length - 1] = signature[signature.length - 1]! ^ 0x01;
    forgedBody.response.response.signature = signature.toString('base64url');
    const forged = await page.request.post(`${PORTAL}/dashboard/mfa/passkey/verify`, { headers, data: JSON.stringify(forgedBody) });
    expect(forged.status()).toBe(400);
    expect((await forged.json()).error).toBe('refused');

    // Inside the partner's iframe of another origin: the frame asks for the passkey and continues.
    await setPartnerFrameOrigins(t.features.onboarding, c.g.partnerId, [partnerSite.origin]);
    const formPath = `/embed/patients/${c.patientId}/prescriptions`;
    await page.goto(partnerSite.framing(await sso(formPath)));
    const frame = page.frameLocator('iframe[title="Prescribing"]');
    await frame.getByRole('button', { name: 'Use your passkey' }).click();
    await expect(frame.getByLabel('Medicine', { exact: true }).waitFor()).resolves.toBeUndefined();
    expect(new URL(page.frames()[1]!.url()).pathname).toBe(formPath);

    // A draft for this prescriber, prepared by a queue manager who presented their own factor.
    const manager = await signInEnrolled(t, c.g, made.managerId);
    const draftForm = await manager.get(draftFormPath(c));
    const prepared = await manager.post(draftFormPath(c), {
      _csrf: /name="_csrf" value="([^"]+)"/.exec(draftForm.body)![1]!,
      form_id: /name="form_id" value="([^"]+)"/.exec(draftForm.body)![1]!,
      ...DRAFT_FIELDS,
      for_prescriber: c.g.userId,
    });
    const draftId = draftIdOfRedirect(prepared);

    // Approving needs a factor within 5 minutes: six minutes on, the approval asks again first.
    t.clock.advanceSeconds(6 * 60);
    await page.goto(`${PORTAL}/dashboard/prescriptions/approval/${draftId}`);
    await page.getByRole('button', { name: 'Approve and create prescription' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/mfa');
    expect(new URL(page.url()).searchParams.get('step_up')).toBe('1');
    const waiting = await t.deps.database.selectFrom('prescription_drafts').select('status').where('id', '=', draftId).executeTakeFirstOrThrow();
    expect(waiting.status).toBe('waiting');
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await page.waitForURL((url) => url.pathname === `/dashboard/prescriptions/approval/${draftId}`);
    await page.getByRole('button', { name: 'Approve and create prescription' }).click();
    await page.waitForURL((url) => url.searchParams.get('created') === '1');
    const approved = await t.deps.database.selectFrom('prescription_drafts').select(['status', 'scid']).where('id', '=', draftId).executeTakeFirstOrThrow();
    expect(approved.status).toBe('approved');
    const actions = await t.deps.database.selectFrom('audit_entries').select(['action', 'outcome']).where('target_user_id', '=', c.g.userId).where('action', 'like', 'mfa.%').orderBy('seq').execute();
    expect(actions.map((a) => `${a.action}:${a.outcome}`)).toEqual(
      expect.arrayContaining(['mfa.enrol:success', 'mfa.recovery_codes_issued:success', 'mfa.verify:success', 'mfa.verify:refused', 'mfa.step_up:success']),
    );
  });

  it('TOTP: a second prescriber enrols and signs in with codes the test computes; a replayed code, a sixth wrong code and a session that skipped the factor are refused', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(await sso(patientPath(), made.secondId));
    const secret = (await page.getByLabel('Authenticator key').textContent())!.trim();
    const enrolCode = totpCode(secret, t.clock.now());
    await page.getByLabel('Code from the app').fill(enrolCode);
    await page.getByRole('button', { name: 'Confirm authenticator app' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/mfa/recovery-codes');
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.pathname === patientPath());

    // Next sign-in, same 30 seconds: the code used to enrol is refused the second time.
    await page.goto(await sso(patientPath(), made.secondId));
    await page.getByLabel('Authenticator code').fill(enrolCode);
    await page.getByRole('button', { name: 'Verify code' }).click();
    await expect(page.getByRole('alert').first().textContent()).resolves.toContain('That code was not accepted');
    expect(new URL(page.url()).pathname).toBe('/dashboard/mfa/totp');

    // A session that skipped the factor: no patient page, and the JSON under /dashboard and /embed answers 401.
    const skipped = await page.request.get(`${PORTAL}${patientPath()}`, { maxRedirects: 0 });
    expect(skipped.status()).toBe(303);
    expect(skipped.headers().location).toBe(`/dashboard/mfa?next=${encodeURIComponent(patientPath())}`);
    for (const frame of ['dashboard', 'embed']) {
      const search = await page.request.get(`${PORTAL}/${frame}/medicines/search?search=amox`, { maxRedirects: 0 });
      expect(search.status()).toBe(401);
      expect(await search.text()).not.toContain('Amoxicillin');
    }

    // Wrong codes: the fifth locks code entry; the sixth attempt is refused even with the right code.
    for (let attempt = 1; attempt <= 5; attempt++) {
      await page.getByLabel('Authenticator code').fill('000000' === totpCode(secret, t.clock.now()) ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify code' }).click();
    }
    await expect(page.getByRole('alert').first().textContent()).resolves.toContain('locked');
    t.clock.advanceSeconds(30);
    await page.getByLabel('Authenticator code').fill(totpCode(secret, t.clock.now()));
    const sixth = page.waitForResponse((response) => response.url().endsWith('/dashboard/mfa/totp'));
    await page.getByRole('button', { name: 'Verify code' }).click();
    expect((await sixth).status()).toBe(429);
    expect((await page.request.get(`${PORTAL}${patientPath()}`, { maxRedirects: 0 })).status()).toBe(303);

    // Fifteen minutes on, a fresh code opens the patient's page.
    t.clock.advanceSeconds(15 * 60);
    await page.goto(`${PORTAL}/dashboard/mfa?next=${encodeURIComponent(patientPath())}`);
    await page.getByLabel('Authenticator code').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Verify code' }).click();
    await page.waitForURL((url) => url.pathname === patientPath());
  });

  it("an admin resets a user's factors from the portal with their own fresh factor; the user is told at the next sign-in", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(await sso('/dashboard/users/mfa', c.g.ownerId));
    const secret = (await page.getByLabel('Authenticator key').textContent())!.trim();
    await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Confirm authenticator app' }).click();
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/users/mfa');
    const secondName = (await t.deps.database.selectFrom('users').select('full_name').where('id', '=', made.secondId).executeTakeFirstOrThrow()).full_name;
    await page.getByRole('button', { name: `Reset factors of ${secondName}` }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain("The user's factors were reset");
    const factors = await t.deps.database.selectFrom('mfa_factors').select('id').where('user_id', '=', made.secondId).execute();
    expect(factors).toEqual([]);
    const reset = await t.deps.database.selectFrom('audit_entries').select(['action', 'target_user_id']).where('action', '=', 'mfa.reset').execute();
    expect(reset).toEqual([{ action: 'mfa.reset', target_user_id: made.secondId }]);

    const userPage = await (await browser.newContext()).newPage();
    await userPage.goto(await sso(patientPath(), made.secondId));
    await expect(userPage.getByRole('status').textContent()).resolves.toContain('Your sign-in factors were reset by an administrator');
    await expect(userPage.getByRole('heading', { name: 'Set up your second factor' }).isVisible()).resolves.toBe(true);
  });
});
