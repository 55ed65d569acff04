// Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), each
// route's schemas compiled when the route first needs them instead of all at start-up.
// Compiling the ~200 routes' validators and serializers was the largest part of `erx serve`'s
// start (a profile of a start on a fresh data directory: ~0.5 of its 1.0 s of CPU), for
// routes most processes never serve (a CLI command builds no app; a server answers a handful of
// routes in its first seconds). Every schema is still enforced: a route's first request pays
// its compile (a few milliseconds), later ones run the compiled function as before.
import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;

/** A validator that compiles on its first call and keeps the compiled function's `errors` where Fastify reads them. */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data) => {
    compiled ??= compile();
    const result = compiled(data);
    // Fastify reads `errors` only when the result is false.
    if (result === false) validate.errors = compiled.errors;
    return result;
  };
  return validate;
}

function lazySerializer(compile: () => Serialize): Serialize {
  let compiled: Serialize | undefined;
  return (data) => (compiled ??= compile())(data);
}

/** Fastify's default compiler factories, deferred per route (pass as `schemaController.compilersFactory`). */
export function lazySchemaCompilers(): Required<CompilersFactory> {
  const buildValidator = ValidatorSelector();
  const buildSerializer = SerializerSelector();
  return {
    buildValidator: ((externalSchemas: never, options: never) => {
      let compiler: ((routeSchema: unknown) => Validate) | undefined;
      return (routeSchema: unknown) =>
        lazyValidator(() => (compiler ??= buildValidator(externalSchemas, options) as unknown as (routeSchema: unknown) => Validate)(routeSchema));
    }) as unknown as CompilersFactory['buildValidator'] & object,
    buildSerializer: ((externalSchemas: never, options: never) => {
      let compiler: ((routeSchema: unknown) => Serialize) | undefined;
      return (routeSchema: unknown) =>
        lazySerializer(() => (compiler ??= buildSerializer(externalSchemas, options) as unknown as (routeSchema: unknown) => Serialize)(routeSchema));
    }) as unknown as CompilersFactory['buildSerializer'] & object,
  };
}
