import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, sessionCookiePolicy } from './portal-security.ts';

describe('the session cookie', () => {
  it('is HttpOnly and host-only with SameSite=Lax on a sandbox served over http', () => {
    expect(sessionCookiePolicy({ mode: 'sandbox', portalUrl: 'http://127.0.0.1:3000' })).toEqual({
      name: 'erx_portal_session',
      options: { httpOnly: true, path: '/', secure: false, sameSite: 'lax' },
    });
  });

  it.each([
    ['production', 'https://portal.example.org'],
    ['production', 'http://10.0.0.5:3000'],
    ['sandbox', 'https://sandbox.example.org'],
  ] as const)('is SameSite=None; Secure with the __Host- prefix in %s at %s, so it works inside an iframe', (mode, portalUrl) => {
    const policy = sessionCookiePolicy({ mode, portalUrl });
    expect(policy.name).toBe('__Host-erx_portal_session');
    expect(policy.options).toEqual({ httpOnly: true, path: '/', secure: true, sameSite: 'none' });
    expect(policy.options).not.toHaveProperty('domain');
  });
});

describe('the Content-Security-Policy', () => {
  it("refuses framing when no origin is listed, and lists the partner's origins otherwise", () => {
    expect(contentSecurityPolicy([])).toMatch(/; frame-ancestors 'none'$/);
    expect(contentSecurityPolicy(['https://a.example', 'http://127.0.0.1:8080'])).toMatch(/; frame-ancestors https:\/\/a\.example http:\/\/127\.0\.0\.1:8080$/);
  });

  it('allows no script and posts forms only to the portal', () => {
    const policy = contentSecurityPolicy([]);
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('script-src');
    expect(policy).toContain("form-action 'self'");
  });
});
