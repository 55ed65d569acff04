// POST /v1/sso: the five credential headers (400 naming every missing one, 401 `Invalid partner
// credentials`), the redirect_path (a path on the portal, else 422), the redirect_url and its
// token (300 s, stored only as a hash), and the reserved_1..3 it carries.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { snapshotDatabase } from '../database-snapshot.ts';
import { call, givenIntegration, givenUser, tokenHeaders, useTestApp } from '../given.ts';
import { mintSso } from '../portal/portal-given.ts';

const { t, c } = useTestApp({ env: { ERX_PUBLIC_URL: 'https://api.erx.example', ERX_PORTAL_URL: 'https://portal.erx.example' } });

const storedTokens = () => t.deps.database.selectFrom('sso_tokens').selectAll().execute();

async function expectRefusedWithoutWrites(send: () => ReturnType<typeof mintSso>, status: number, detail: string | RegExp) {
  const before = await snapshotDatabase(t.deps.database);
  const response = await send();
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({ success: false, statusCode: status, error: { detail } });
  expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  return response.json();
}

describe('POST /v1/sso', () => {
  it('answers the token, the portal link and expires_in 300, and keeps only a hash of the token', async () => {
    const redirectPath = `/embed/patients/${c.g.userId}/prescriptions?quantity=5&reserved_1=abc`;
    const response = await mintSso(t, c.g, { redirect_path: redirectPath });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ success: true, statusCode: 200, message: 'SSO token generated successfully', code: 'SUCCESS' });
    const { sso_token: token, redirect_url: url, expires_in: expiresIn } = body.data;
    expect(expiresIn).toBe(300);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url).toBe(`https://portal.erx.example/auth/sso?token=${token}&redirect=${encodeURIComponent(redirectPath)}`);
    const stored = (await storedTokens()).find((row) => row.token_hash === createHash('sha256').update(token).digest('hex'));
    expect(stored).toMatchObject({ partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: c.g.userId, redirect_path: redirectPath, used_at: null });
    expect(Date.parse(stored!.expires_at) - Date.parse(stored!.created_at)).toBe(300_000);
    expect(JSON.stringify(await storedTokens())).not.toContain(token);
  });

  it('lands on /dashboard when no redirect_path is sent, and builds on the public URL when no portal URL is set', async () => {
    const response = await mintSso(t, c.g, {});
    expect(response.json().data.redirect_url).toMatch(/^https:\/\/portal\.erx\.example\/auth\/sso\?token=[A-Za-z0-9_-]{43}&redirect=%2Fdashboard$/);
  });

  it('stores reserved_1..3 of the redirect_path query truncated to 30 characters, empty as null', async () => {
    const long = 'r'.repeat(45);
    await mintSso(t, c.g, { redirect_path: `/dashboard?reserved_1=abc&reserved_2=&reserved_3=${long}` });
    const newest = (await storedTokens()).sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1)!;
    expect(newest).toMatchObject({ reserved_1: 'abc', reserved_2: null, reserved_3: 'r'.repeat(30) });
  });

  it.each([
    [['x-user-id'], 'Missing required headers: x-user-id'],
    [['x-partner-secret', 'x-organization-secret'], 'Missing required headers: x-partner-secret, x-organization-secret'],
    [['x-partner-id', 'x-partner-secret', 'x-organization-id', 'x-organization-secret', 'x-user-id'], 'Missing required headers: x-partner-id, x-partner-secret, x-organization-id, x-organization-secret, x-user-id'],
  ])('is a 400 naming every missing header (%j), before anything else', async (missing, detail) => {
    const headers = Object.fromEntries(Object.entries(tokenHeaders(c.g)).filter(([name]) => !missing.includes(name)));
    const body = await expectRefusedWithoutWrites(() => mintSso(t, c.g, { redirect_path: 'https://evil.example' }, headers), 400, detail);
    expect(body.error.type).toMatch(/\/invalid-request$/);
  });

  it('counts a blank header as missing', async () => {
    await expectRefusedWithoutWrites(() => mintSso(t, c.g, {}, { ...tokenHeaders(c.g), 'x-user-id': '  ' }), 400, 'Missing required headers: x-user-id');
  });

  describe('401 Invalid partner credentials', () => {
    const refused = (headers: () => Record<string, string>) => () =>
      expectRefusedWithoutWrites(() => mintSso(t, c.g, { redirect_path: '/dashboard' }, headers()), 401, 'Invalid partner credentials');

    it('for a wrong partner secret', refused(() => ({ ...tokenHeaders(c.g), 'x-partner-secret': 'wrong' })));
    it('for a wrong organization secret', refused(() => ({ ...tokenHeaders(c.g), 'x-organization-secret': 'wrong' })));
    it('for an unknown partner', refused(() => ({ ...tokenHeaders(c.g), 'x-partner-id': 'nobody' })));
    it('for an organization id that is not a UUID', refused(() => ({ ...tokenHeaders(c.g), 'x-organization-id': 'clinic' })));
    it('for a user id that is not a UUID', refused(() => ({ ...tokenHeaders(c.g), 'x-user-id': 'anna' })));

    it('for a partner the organization has not enabled', async () => {
      const other = await givenIntegration(t);
      // The other partner's own credentials, naming this organization (with its right secret).
      const headers = { ...tokenHeaders(c.g), 'x-partner-id': other.partnerId, 'x-partner-secret': other.partnerSecret };
      await refused(() => headers)();
    });

    it("for a user of another organization, or the other organization's user with this one's credentials", async () => {
      const other = await givenIntegration(t);
      await refused(() => tokenHeaders(c.g, other.userId))();
    });

    it('for a disabled user', async () => {
      const user = await givenUser(t, c.g.organizationId, ['provider']);
      expect((await call(t, 'PUT', c.userUrl(user.user_id, '/disable'), c.owner)).statusCode).toBe(200);
      await refused(() => tokenHeaders(c.g, user.user_id))();
    });

    it('before the body is judged', async () => {
      const headers = { ...tokenHeaders(c.g), 'x-partner-secret': 'wrong' };
      await expectRefusedWithoutWrites(() => mintSso(t, c.g, { redirect_path: 'https://evil.example' }, headers), 401, 'Invalid partner credentials');
    });
  });

  it.each([
    ['a URL of another site', 'https://evil.example/dashboard'],
    ['a protocol-relative address', '//evil.example/dashboard'],
    ['a backslash', '/\\evil.example'],
    ['a path without its leading slash', 'dashboard'],
    ['an empty path', ''],
    ['a space', '/dash board'],
  ])('is a 422 on redirect_path for %s, writing nothing', async (_case, redirectPath) => {
    const body = await expectRefusedWithoutWrites(() => mintSso(t, c.g, { redirect_path: redirectPath }), 422, 'The request body failed validation');
    expect(body.error.validation).toEqual([{ field: 'redirect_path', message: expect.any(String), code: 'VALIDATION_ERROR' }]);
  });

  it('is a 422 for a redirect_path that is not a string or is too long', async () => {
    for (const redirectPath of [42, null, `/${'a'.repeat(2048)}`]) {
      const body = await expectRefusedWithoutWrites(() => mintSso(t, c.g, { redirect_path: redirectPath }), 422, 'The request body failed validation');
      expect(body.error.validation.map((issue: { field: string }) => issue.field)).toEqual(['redirect_path']);
    }
  });

  it('takes JSON only: a form-encoded body is a 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/sso',
      headers: { ...tokenHeaders(c.g), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'redirect_path=%2Fdashboard',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ success: false, statusCode: 415 });
  });

  it('needs no body at all', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/sso', headers: tokenHeaders(c.g) });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.redirect_url).toMatch(/&redirect=%2Fdashboard$/);
  });
});
