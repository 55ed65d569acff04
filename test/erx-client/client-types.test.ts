// The committed types of @erx/client are what openapi-typescript makes of erx's OpenAPI document
// now: a route or schema changed without `npm run client:generate` fails here. And the client's
// calls are checked by them (the @ts-expect-error lines fail `tsc --noEmit` if a wrong call compiles).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, loadOpenApiDocument, renderClientTypes } from '../../scripts/client-types.ts';
import type { ErxClient } from '../../packages/erx-client/src/index.ts';

describe('the generated client types', () => {
  it('match the OpenAPI document erx serves (else run `npm run client:generate`)', async () => {
    const fresh = await renderClientTypes(await loadOpenApiDocument());
    const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
    expect(fresh.length).toBeGreaterThan(10_000);
    if (fresh !== committed) {
      expect.fail(`${CLIENT_TYPES_FILE} is stale: erx's OpenAPI document changed. Run \`npm run client:generate\` and commit the result.`);
    }
  });

  it('describe the partner operations the client names', async () => {
    const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
    for (const path of ['/v1/token', '/v1/sso', '/v1/organizations/{organization_id}/events', '/v1/partner/webhook-endpoint/rotate-secret', '/v1/organizations/{organization_id}/users/{user_id}/patients/ihi-precheck']) {
      expect(committed).toContain(`"${path}": {`);
    }
  });
});

/** Never called: what must not compile. */
export function wrongCallsDoNotCompile(client: ErxClient): void {
  // @ts-expect-error an unknown path
  void client.request('get', '/v1/no-such-path', {});
  // @ts-expect-error a path without that method
  void client.request('delete', '/v1/token', {});
  // @ts-expect-error a missing path parameter
  void client.request('get', '/v1/organizations/{organization_id}/users/{user_id}', { path: { organization_id: 'o' } });
  // @ts-expect-error a body of the wrong shape
  void client.partner.setWebhookEndpoint({ address: 'https://example.test' });
  // @ts-expect-error a precheck without its body
  void client.patients.precheck();
}
