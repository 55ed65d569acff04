import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../test-app.ts';
import { useTestApp } from '../given.ts';

let t: TestApp;
useTestApp({}, (app) => {
  t = app;
});

describe('OpenAPI and docs', () => {
  it('serves an OpenAPI 3.1 document generated from every /v1 route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    for (const route of t.app.routeCatalog.filter((entry) => entry.url.includes('/v1/'))) {
      const path = route.url.replace(/:([a-z_]+)/g, '{$1}');
      expect(document.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
    const validate = document.paths['/v1/organizations/{organization_id}/validate'].get;
    expect(validate.security).toEqual([{ bearerAuth: [], organizationSecret: [] }]);
    expect(validate.description).toContain('create:patient');
    expect(Object.keys(validate.responses)).toEqual(expect.arrayContaining(['200', '401', '429', '500']));
    expect(document.paths['/openapi.json']).toBeUndefined();
  });

  it('serves an interactive docs page at /docs', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('swagger');
  });
});

describe('health and readiness', () => {
  it('answers /health', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers /ready while the database answers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready' });
  });

  it('answers /ready with 503 once the database is gone', async () => {
    const broken = await createTestApp();
    await broken.deps.database.close();
    const response = await broken.app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.type).toMatch(/\/service-unavailable$/);
    await broken.app.close();
    await sql`select 1`.execute(t.deps.database); // the other app's database is untouched
  });
});
