// Bodies built to break the server: nesting as deep as the body limit allows, in every route
// that takes a body, and in the fields that once overflowed the stack. Each is a 400 or 422.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/platform/http/json-body.ts';
import { useTestApp } from '../given.ts';

const { t, c } = useTestApp({});

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

// The partner self-service routes take the partner's own credentials; every other route the owner's token.
function send(method: string, url: string, payload: string) {
  const credentials = url.startsWith('/v1/partner/') ? { 'x-partner-id': c.g.partnerId, 'x-partner-secret': c.g.partnerSecret } : c.owner;
  return t.app.inject({ method: method as 'POST', url, headers: { ...credentials, 'content-type': 'application/json' }, payload });
}

function concreteUrl(url: string): string {
  return url.replace(':organization_id', c.g.organizationId).replace(':user_id', c.g.userId).replace(/:[a-z_]+/g, '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c');
}

describe('deeply nested bodies', () => {
  it('are refused with 400 on every route that takes a body, up to the body limit', async () => {
    // The JSON API's routes; the portal's (HTML forms behind a session cookie) answer 401 before reading a body.
    const routes = t.app.routeCatalog.filter((route) => (route.method === 'POST' || route.method === 'PUT') && route.auth.kind !== 'session');
    expect(routes.length).toBeGreaterThanOrEqual(8);
    // Patient routes take at most 32 KB; the others the configured limit (over a route's own limit, 413).
    for (const depth of [15_000, Math.floor((t.deps.config.bodyLimitBytes - 64) / 2)]) {
      for (const route of routes) {
        const response = await send(route.method, concreteUrl(route.url), `{"given_name":${nested(depth)}}`);
        if (response.statusCode === 413 && depth > 15_000) continue;
        expect(response.statusCode, `${route.method} ${route.url} at depth ${depth}`).toBe(400);
        expect(response.json().error.detail).toMatch(/nests objects and arrays deeper than/);
      }
    }
  });

  const fields: Array<[string, string, string, (value: string) => string]> = [
    ['create user', 'POST', 'date_of_birth', (v) => `{"given_name":"A","family_name":"B","email":"deep@example.test","access_roles":["provider"],"date_of_birth":${v}}`],
    ['update user', 'PUT', 'provider_details.date_of_birth', (v) => `{"provider_details":{"date_of_birth":${v}}}`],
    ['update user', 'PUT', 'provider_details.prescriber_type', (v) => `{"provider_details":{"prescriber_type":${v}}}`],
  ];

  for (const [name, method, field, body] of fields) {
    it(`${name}: ${field} nested 3,000 deep (6 KB) is a 400, and just inside the limit a 422 naming the field`, async () => {
      const url = method === 'POST' ? c.usersUrl : c.userUrl();
      expect((await send(method, url, body(nested(3000)))).statusCode).toBe(400);
      const inside = await send(method, url, body(nested(MAX_JSON_DEPTH - 2)));
      expect(inside.statusCode, inside.body).toBe(422);
      expect(inside.json().error.validation.map((issue: { field: string }) => issue.field)).toContain(field);
    });
  }
});
