// For routes whose 422 must combine schema failures with checks a schema cannot express
// (check digits, future dates, cross-field rules): declare `attachValidation: true`, run the
// extra checks in the handler, then call throwIfInvalid so every failure goes out together.
import type { FastifyRequest } from 'fastify';
import { validationFailed, type ValidationIssue } from './api-error.ts';
import { issuesFromAjv, MAX_REPORTED_ISSUES } from './error-handler.ts';

export function schemaIssuesOf(request: FastifyRequest): ValidationIssue[] {
  const failure = request.validationError as (Error & { validation?: Parameters<typeof issuesFromAjv>[0] }) | undefined;
  return failure?.validation ? issuesFromAjv(failure.validation) : [];
}

/** Throws one 422 with the schema issues and `extra`, de-duplicated by field and message. */
export function throwIfInvalid(request: FastifyRequest, extra: ValidationIssue[] = []): void {
  const seen = new Set<string>();
  const issues = [...schemaIssuesOf(request), ...extra].filter((issue) => {
    const key = `${issue.field}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (issues.length > 0) throw validationFailed(issues.slice(0, MAX_REPORTED_ISSUES));
}
