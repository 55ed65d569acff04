// Request bodies reach services as they were submitted, with the schema's failures beside them
// (routes declare `attachValidation: true`). A service finds the resources its path names
// first (404), then runs the checks a schema cannot express (check digits, future dates,
// cross-field rules) and calls throwIfInvalid, so every failure of the body goes out together
// as one 422. That order is the same on every route.
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

/** Throws one 422 with the schema issues and `extra`, de-duplicated by field and message. */
export function throwIfInvalid(body: SubmittedBody, extra: ValidationIssue[] = []): void {
  if (body.issues.length === 0 && extra.length === 0) return;
  const seen = new Set<string>();
  const issues = [...body.issues, ...extra].filter((issue) => {
    const key = `${issue.field}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  throw validationFailed(issues.slice(0, MAX_REPORTED_ISSUES));
}
