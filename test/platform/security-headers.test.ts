// Headers every response carries, whichever part of the service answers: the JSON API (a
// success, a refusal, a schema failure, an unknown route), the portal, the OpenAPI document
// and the docs page with its assets. The docs page has its own Content-Security-Policy, and
// Chromium shows it working under that policy: it loads its assets, renders the operations
// and reports no violation.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestClient } from '../given.ts';
import { browserTestsRun, freeLoopbackPort, launchChromium } from '../portal/browser-given.ts';
import type { TestApp } from '../test-app.ts';

const run = browserTestsRun();
const port = await freeLoopbackPort();
const { t, c } = useTestApp({ env: { ERX_PUBLIC_URL: `http://127.0.0.1:${port}` } }, async (app) => {
  await app.app.listen({ port, host: '127.0.0.1' });
  return {};
});

describe('X-Content-Type-Options: nosniff', () => {
  it('comes with every response: API, portal, docs, errors and 404s', async () => {
    const requests: Array<{ method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string; status: number }> = [
      { method: 'GET', url: '/health', status: 200 },
      { method: 'GET', url: `/v1/organizations/${c.g.organizationId}/validate`, headers: c.owner, status: 200 },
      { method: 'GET', url: `/v1/organizations/${c.g.organizationId}/validate`, status: 401 },
      { method: 'POST', url: '/v1/token', headers: { 'content-type': 'application/json' }, payload: '{"broken', status: 400 },
      { method: 'GET', url: '/v1/no-such-route', status: 404 },
      { method: 'GET', url: '/no-such-page', status: 404 },
      { method: 'GET', url: '/dashboard', status: 401 },
      { method: 'GET', url: '/assets/portal.css', status: 200 },
      { method: 'GET', url: '/openapi.json', status: 200 },
      { method: 'GET', url: '/docs', status: 200 },
      { method: 'GET', url: '/docs/static/swagger-ui.css', status: 200 },
      { method: 'GET', url: '/.well-known/jwks.json', status: 200 },
    ];
    for (const { status, ...request } of requests) {
      const response = await t.app.inject(request);
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(status);
      expect(response.headers['x-content-type-options'], `${request.method} ${request.url}`).toBe('nosniff');
    }
  });
});

describe('the docs page', () => {
  const DOCS_POLICY =
    "default-src 'none'; script-src 'self'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; img-src 'self' data:; font-src 'self' data:; " +
    `connect-src 'self' http://127.0.0.1:${port}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

  it('and its assets have a Content-Security-Policy that allows no inline script and no other origin', async () => {
    for (const url of ['/docs', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-initializer.js']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-security-policy'], url).toBe(DOCS_POLICY);
    }
    expect((await t.app.inject({ method: 'GET', url: '/docs' })).body).not.toMatch(/<script>|<style>|<script [^>]*>[^<\s]/);
  });

  describe.runIf(run)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());

    it('loads its scripts and styles under that policy and renders the operations, with no violation', async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      const failed: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) violations.push(message.text());
      });
      page.on('requestfailed', (request) => failed.push(request.url()));
      const loaded: string[] = [];
      page.on('response', (response) => loaded.push(`${response.status()} ${new URL(response.url()).pathname}`));
      await page.goto(`http://127.0.0.1:${port}/docs`);
      await page.getByText('/v1/token', { exact: true }).first().waitFor();
      expect(loaded, loaded.join('\n')).toEqual(
        expect.arrayContaining(['200 /docs/static/swagger-ui-bundle.js', '200 /docs/static/swagger-ui.css', '200 /docs/static/swagger-initializer.js', '200 /docs/json']),
      );
      // Swagger UI's own stylesheet applied: its wrapper is laid out as a block with a max width.
      expect(await page.locator('.swagger-ui .wrapper').first().evaluate((element) => getComputedStyle(element).maxWidth)).not.toBe('none');
      expect({ violations, failed }).toEqual({ violations: [], failed: [] });
      await page.close();
    }, 60_000); // Chromium loading Swagger UI took 19 s on a loaded 2-core machine
  });
});
