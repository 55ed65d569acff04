// Request bodies reach services as they were submitted, with the schema's failures beside them
// (routes declare `attachValidation: true`). A service finds the resources its path names
// first (404), then runs the checks a schema cannot express (check digits, future dates,
// cross-field rules) and reads the body with readBody, so every failure of the body goes out
// together as one 422. That order is the same on every route. The API turns a refusal into
// the 422 (valueOrRefuse); the portal shows each field error beside its field.
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { validationFailed, type ValidationIssue } from './api-error.ts';
import { issuesFromAjv, MAX_REPORTED_ISSUES } from './error-handler.ts';

/** A body as the partner sent it, and what its schema found wrong with it. */
export interface SubmittedBody<T = unknown> {
  /** The parsed body; typed as the schema describes it, which holds only when `issues` is empty. */
  value: T;
  /** The schema's failures (of the body, and of the path and query when the route has schemas for them). */
  issues: ValidationIssue[];
}

/** Every schema failure of the request (uncapped: a bulk body judges each item by its own). */
export function schemaIssuesOf(request: FastifyRequest): ValidationIssue[] {
  const failure = request.validationError as (Error & { validation?: Parameters<typeof issuesFromAjv>[0] }) | undefined;
  return failure?.validation ? issuesFromAjv(failure.validation, Infinity) : [];
}

export function submittedBody<T>(request: FastifyRequest): SubmittedBody<T> {
  return { value: request.body as T, issues: schemaIssuesOf(request) };
}

/** The body as a plain object, or an empty one when it is anything else. */
export function bodyFields(body: SubmittedBody): Record<string, unknown> {
  const value = body.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** One refusal of one field: `{ field, message, code }`, as the 422's `error.validation[]` lists them. */
export type FieldError = ValidationIssue;

/** A body read: its typed value, or every field error (the schema's first, then the checks'). */
export type BodyRead<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A body as sent: any field may be missing, and one the schema refused may hold anything. */
export type SentBody<S extends TSchema> = Partial<Static<S>> & Record<string, unknown>;

export interface BodyChecks<S extends TSchema, T> {
  /** The checks the schema cannot express; `refused` names the fields the schema already refused. */
  errors?: (body: SentBody<S>, refused: ReadonlySet<string>) => FieldError[];
  /** The value the body stands for, once neither the schema nor the checks refused it (default: the body itself). */
  value?: (body: Static<S>) => T;
}

/** The schema's failures and `extra`, de-duplicated by field and message, as many as a response reports. */
function collectErrors(schemaErrors: readonly FieldError[], extra: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  const errors = [...schemaErrors, ...extra].filter((error) => {
    const key = `${error.field}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return errors.slice(0, MAX_REPORTED_ISSUES);
}

/**
 * Reads a body described by `schema`: the failures its route's validator found (Fastify
 * compiles the schema once per route), then `checks.errors`, all together; or the typed value.
 * The portal passes the bodies it builds the same way, so both surfaces apply the same rules.
 */
export function readBody<S extends TSchema, T = Static<S>>(_schema: S, submitted: SubmittedBody, checks: BodyChecks<S, T> = {}): BodyRead<T> {
  const body = bodyFields(submitted) as SentBody<S>;
  const extra = checks.errors?.(body, new Set(submitted.issues.map((issue) => issue.field))) ?? [];
  const errors = collectErrors(submitted.issues, extra);
  if (errors.length > 0) return { ok: false, errors };
  const value = checks.value ? checks.value(body as Static<S>) : (body as T);
  return { ok: true, value };
}

/** The value read, or the 422 that lists every field error (the API's answer to a refused body). */
export function valueOrRefuse<T>(read: BodyRead<T>): T {
  if (!read.ok) throw validationFailed(read.errors);
  return read.value;
}
