// One order on every route (docs/partners/api.md, "Responses and errors"): authentication (401/403), then
// the resources the path names (404), then the body (400/422), then business rules. A route
// that names a resource that does not exist answers 404 whatever its body holds.
import { describe, expect, it } from 'vitest';
import type { RouteCatalogEntry } from '../../src/auth/index.ts';
import { newScid } from '../../src/pds/pds-scid.ts';
import { call, useTestApp } from '../given.ts';

const { t, c } = useTestApp({});

const UNKNOWN_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';

/**
 * Bearer routes whose path names something beyond the caller's own organization. A delete is
 * idempotent about the thing it deletes (200 when it is already gone), so a delete counts only
 * when its path also names an owner (a user, a patient) before it.
 */
function routesNamingResources(): RouteCatalogEntry[] {
  return t.app.routeCatalog.filter((route) => {
    if (route.auth.kind !== 'bearer') return false;
    const named = route.url.match(/:(?!organization_id)[a-z_]+/g) ?? [];
    return route.method === 'DELETE' ? named.length > 1 : named.length > 0;
  });
}

describe('404 before 422', () => {
  it('answers 404 for an unknown path resource even when the body is invalid too', async () => {
    const routes = routesNamingResources();
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) {
      // A SCID is checked for its form (400) before any lookup: an unknown one is well formed.
      const url = route.url.replace(':organization_id', c.g.organizationId).replace(':scid', newScid()).replace(/:[a-z_]+/g, UNKNOWN_ID);
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : { provider_details: 'not an object', item_form: 7, access_roles: 'x' };
      const response = await call(t, route.method as 'GET', url, c.owner, body);
      expect(response.statusCode, `${route.method} ${route.url}: ${response.body}`).toBe(404);
      expect(response.json().code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('judges the body once the path resources exist', async () => {
    const response = await call(t, 'PUT', c.userUrl(c.g.userId), c.owner, { provider_details: 'not an object' });
    expect(response.statusCode).toBe(422);
    const drug = await call(t, 'PUT', `${c.catalogUrl}/${UNKNOWN_ID}`, c.owner, {});
    expect(drug.statusCode).toBe(404);
  });
});
