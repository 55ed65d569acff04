import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { createTestApp } from '../test-app.ts';
import { useTestApp } from '../given.ts';

const { t } = useTestApp({});

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

  it('serves a valid OpenAPI 3.1 document, each of its schemas valid JSON Schema 2020-12', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe('3.1');
    // The validator checks the document's structure only ("without Schema Object validation"),
    // so each schema is compiled against 3.1's default dialect (JSON Schema 2020-12), in strict
    // mode: a keyword that is not JSON Schema, or a value its meta-schema refuses, fails here
    // rather than being silently ignored by partners' tools.
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']); // the OpenAPI 3.1 base vocabulary's annotations
    // ajv-formats is CommonJS: its function is the module itself, or its `default` under some loaders.
    const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (ajv: Ajv2020) => void;
    addFormats(ajv);
    const failures = schemasOf(document).flatMap(({ at, schema }) => {
      try {
        ajv.compile(schema);
        return [];
      } catch (error) {
        return [`${at}: ${(error as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
  }, 60_000); // compiling every schema under JSON Schema 2020-12 took 20 s on a loaded 2-core machine

  it('serves an interactive docs page at /docs', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('swagger');
  });
});

type Schemas = Array<{ at: string; schema: object }>;
type MediaTypes = Record<string, { schema?: object }> | undefined;

/** Every Schema Object of an OpenAPI document: parameters', request bodies', responses' and components'. */
function schemasOf(document: {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; schema?: object }>; requestBody?: { content?: MediaTypes }; responses?: Record<string, { content?: MediaTypes }> }>>;
  components?: { schemas?: Record<string, object> };
}): Schemas {
  const ofContent = (at: string, content: MediaTypes): Schemas =>
    Object.entries(content ?? {}).flatMap(([type, media]) => (media.schema ? [{ at: `${at} ${type}`, schema: media.schema }] : []));
  const found: Schemas = Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => ({ at: `components.schemas.${name}`, schema }));
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const parameter of operation.parameters ?? []) if (parameter.schema) found.push({ at: `${at} parameter ${parameter.name}`, schema: parameter.schema });
      found.push(...ofContent(`${at} request body`, operation.requestBody?.content));
      for (const [status, response] of Object.entries(operation.responses ?? {})) found.push(...ofContent(`${at} ${status}`, response.content));
    }
  }
  return found;
}

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
