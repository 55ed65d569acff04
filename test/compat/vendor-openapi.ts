// The vendor's OpenAPI 3.0 document as response checks: for each operation and status, the
// response schema with its $refs resolved and the 3.0-only keywords translated into the JSON
// Schema Ajv speaks. The document is reference material: it is read from ../shared/reference
// at test time and never copied into the project.
import fs from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

type Schema = Record<string, unknown>;

interface MediaType {
  schema?: Schema;
}
interface VendorResponse {
  content?: Record<string, MediaType>;
}
interface VendorOperationObject {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, VendorResponse>;
}
interface OpenApi30Document {
  openapi: string;
  paths: Record<string, Record<string, VendorOperationObject>>;
  components: { schemas: Record<string, Schema> };
}

/** "GET /v1/organizations/{organization_id}/users", as the vendor's document writes it. */
export type OperationName = string;

/** A method and path with the path parameters' names left out, so `{drug_id}` and `:custom_drug_id` meet. */
export function routeShapeOf(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, '{}')}`;
}

/** Something the document leaves undefined: a $ref to a schema it never defines, or a response without a schema. */
export interface SchemaGap {
  operation: OperationName;
  /** The status of the response, or 'request body'. */
  where: string;
  /** The schema name the document refers to, or 'no schema'. */
  missing: string;
}

/** The common envelopes every response schema of the document is built on (each other one is an allOf of them). */
const SUCCESS_ENVELOPE = 'ExternalApiResponse';
const ERROR_ENVELOPE = 'ExternalApiErrorResponse';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const SCHEMA_NAME = /^#\/components\/schemas\/(.+)$/;

function jsonSchemaOf(media: Record<string, MediaType> | undefined): Schema | undefined {
  return media?.['application/json']?.schema;
}

function undefinedRefOf(schema: Schema | undefined, defined: Record<string, Schema>): string | undefined {
  const name = typeof schema?.$ref === 'string' ? SCHEMA_NAME.exec(schema.$ref)?.[1] : undefined;
  return name !== undefined && !(name in defined) ? name : undefined;
}

/**
 * OpenAPI 3.0 Schema Object → JSON Schema (draft-07, as Ajv runs it): every $ref inlined,
 * `nullable: true` turned into a type (or enum) that allows null, and the annotation
 * `example` dropped (Ajv knows `deprecated` and `description` as annotations already). Any
 * other 3.0-only keyword is left in place, so Ajv's strict mode refuses it rather than the
 * check quietly ignoring it.
 */
function translate(schema: Schema, defined: Record<string, Schema>, seen: string[] = []): Schema {
  if (typeof schema.$ref === 'string') {
    const name = SCHEMA_NAME.exec(schema.$ref)?.[1];
    if (name === undefined || !(name in defined)) throw new Error(`unresolvable $ref ${schema.$ref} inside a schema`);
    if (seen.includes(name)) throw new Error(`recursive $ref ${[...seen, name].join(' → ')}`);
    return translate(defined[name]!, defined, [...seen, name]);
  }
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'example' || keyword === 'nullable') continue;
    if (keyword === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, property]) => [name, translate(property, defined, seen)]));
    } else if (keyword === 'items' || keyword === 'not' || (keyword === 'additionalProperties' && typeof value === 'object')) {
      out[keyword] = translate(value as Schema, defined, seen);
    } else if (keyword === 'allOf' || keyword === 'anyOf' || keyword === 'oneOf') {
      out[keyword] = (value as Schema[]).map((part) => translate(part, defined, seen));
    } else {
      out[keyword] = value;
    }
  }
  if (schema.nullable !== true) return out;
  if (typeof out.type === 'string') {
    return { ...out, type: [out.type, 'null'], ...(Array.isArray(out.enum) ? { enum: [...out.enum, null] } : {}) };
  }
  return { anyOf: [out, { type: 'null' }] };
}

export interface ResponseCheck {
  validate: ValidateFunction;
  /** What the body is checked against: the declared schema, or the stand-in for a gap or an undeclared status. */
  against: string;
}

export interface VendorContract {
  /** Every operation of the document, by route shape. */
  operations: Map<string, { name: OperationName; statuses: string[] }>;
  /** Every $ref to an undefined schema and every response without a schema. */
  gaps: SchemaGap[];
  /** The check of `status` of the operation of `shape`; undefined when the operation does not declare that status. */
  checkOf(shape: string, status: number): ResponseCheck | undefined;
  /** The stand-in check for a status the operation does not declare: its success schema for a 2xx, the error envelope otherwise. */
  standInOf(shape: string, status: number): ResponseCheck;
  errorsText(errors: ErrorObject[] | null | undefined): string;
}

export function loadVendorContract(file: string): VendorContract {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as OpenApi30Document;
  if (!document.openapi.startsWith('3.0.')) throw new Error(`${file} is OpenAPI ${document.openapi}, not 3.0`);
  const defined = document.components.schemas;
  // strict: an OpenAPI keyword this translation does not handle fails the compile instead of passing
  // unchecked. strictRequired stays off: an allOf part may require what another part defines.
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  // ajv-formats is CommonJS: its function is the module itself, or its `default` under some loaders.
  const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (ajv: Ajv) => void;
  addFormats(ajv);
  const compiled = new Map<string, ResponseCheck>();
  const compile = (key: string, schema: Schema, against: string): ResponseCheck => {
    const known = compiled.get(key);
    if (known) return known;
    const check = { validate: ajv.compile(translate(schema, defined)), against };
    compiled.set(key, check);
    return check;
  };
  const envelopeCheck = (status: number) => {
    const name = status < 400 ? SUCCESS_ENVELOPE : ERROR_ENVELOPE;
    return compile(`envelope ${name}`, { $ref: `#/components/schemas/${name}` }, `the document's common ${name}`);
  };

  const operations = new Map<string, { name: OperationName; statuses: string[] }>();
  const responses = new Map<string, Record<string, VendorResponse>>();
  const gaps: SchemaGap[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const shape = routeShapeOf(method, path);
      operations.set(shape, { name, statuses: Object.keys(operation.responses ?? {}) });
      responses.set(shape, operation.responses ?? {});
      const requestRef = undefinedRefOf(jsonSchemaOf(operation.requestBody?.content), defined);
      if (requestRef) gaps.push({ operation: name, where: 'request body', missing: requestRef });
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = jsonSchemaOf(response.content);
        const missing = schema ? undefinedRefOf(schema, defined) : 'no schema';
        if (missing) gaps.push({ operation: name, where: status, missing });
      }
    }
  }

  const checkOf = (shape: string, status: number): ResponseCheck | undefined => {
    const response = responses.get(shape)?.[String(status)];
    if (!response) return undefined;
    const schema = jsonSchemaOf(response.content);
    // A gap is checked against the envelope the document builds every response schema on.
    if (!schema || undefinedRefOf(schema, defined)) return envelopeCheck(status);
    return compile(`${shape} ${status}`, schema, `the ${status} schema`);
  };
  const standInOf = (shape: string, status: number): ResponseCheck => {
    const declaredSuccess = (operations.get(shape)?.statuses ?? []).filter((s) => s.startsWith('2')).sort()[0];
    if (status < 300 && declaredSuccess) return checkOf(shape, Number(declaredSuccess))!;
    return envelopeCheck(status);
  };
  return { operations, gaps, checkOf, standInOf, errorsText: (errors) => ajv.errorsText(errors, { dataVar: 'body' }) };
}
