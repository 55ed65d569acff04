// The suite's check that every response matches its route's declared schema (response-contract.ts)
// does catch what it is there for: a field of the wrong type, and a status the route never declared.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { API_ROUTE_MODULES, PORTAL_ROUTE_MODULES } from '../../src/app.ts';
import type { RouteModule } from '../../src/route-module.ts';
import { useTestApp } from '../given.ts';

const drifting: RouteModule = (app) => {
  app.route({
    method: 'GET',
    url: '/test-only/drift/:kind',
    config: { auth: { kind: 'public' } },
    schema: { response: { 200: Type.Object({ count: Type.Integer() }) } },
    handler: async (request, reply) => {
      const { kind } = request.params as { kind: string };
      // Deliberately outside the declared schema, which the type provider would refuse to compile.
      if (kind === 'undeclared') return reply.status(202 as 200).send({ count: 1 });
      return (kind === 'wrong' ? { count: 'three' } : { count: 3 }) as { count: number };
    },
  });
};

const { t } = useTestApp({ surfaces: { api: [...API_ROUTE_MODULES, drifting], portal: PORTAL_ROUTE_MODULES } });

describe('the response contract check of the test suite', () => {
  it('passes a response that matches its schema', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/test-only/drift/right' })).json()).toEqual({ count: 3 });
  });

  it('fails a response with a field of the wrong type, and one with an undeclared status', async () => {
    for (const kind of ['wrong', 'undeclared']) {
      t.logs.length = 0;
      const response = await t.app.inject({ method: 'GET', url: `/test-only/drift/${kind}` });
      expect(response.statusCode, kind).toBe(500);
      expect(t.logs.join('\n'), kind).toContain('ResponseContractBreach');
    }
  });
});
