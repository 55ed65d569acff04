// Reading the user routes' bodies: schema failures and the checks a schema cannot express
// (the prescriber-type dependency, calendar dates, e-mail format, fields a role requires) go
// out together as one 422; unknown fields are dropped.
import { isValidEmail, normaliseEmail } from '../identifiers/index.ts';
import { ApiError, type ValidationIssue } from '../platform/http/api-error.ts';
import { bodyFields, throwIfInvalid, type SubmittedBody } from '../platform/http/body-validation.ts';
import { checkPrescriberTypeRule, checkProviderFormats, fieldsNeededByType, PROVIDER_FIELD_NAMES, type ProviderDetailsPatch } from './provider-details.ts';
import type { AssignableRole, Role } from '../auth/index.ts';

/** Create user's body, as read. */
export type NewUserRequest = ProviderDetailsPatch & {
  given_name: string;
  family_name: string;
  email: string;
  access_roles?: AssignableRole[];
};

/** Update user's body, as read. */
export interface UserUpdate {
  full_name?: string;
  provider_details?: ProviderDetailsPatch;
}

/** Create user: the fields a role needs beside the always-required names and e-mail. */
export const FIELDS_REQUIRED_BY_ROLE: ReadonlyArray<{ role: Role; fields: readonly (keyof NewUserRequest)[] }> = [
  { role: 'provider', fields: ['date_of_birth', 'sex', 'hpii_number', 'qualifications', 'prescriber_type'] },
  { role: 'rx_queue_manager', fields: ['date_of_birth', 'sex', 'hpii_number', 'qualifications'] },
];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pick<T>(body: Record<string, unknown>, names: readonly string[]): T {
  return Object.fromEntries(names.filter((name) => body[name] !== undefined).map((name) => [name, body[name]])) as T;
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === '';
}

export function readUserUpdate(submitted: SubmittedBody): UserUpdate {
  const body = bodyFields(submitted);
  const details = isPlainObject(body.provider_details) ? (body.provider_details as ProviderDetailsPatch) : undefined;
  throwIfInvalid(submitted, details ? [...checkPrescriberTypeRule(details), ...checkProviderFormats(details)] : []);
  const update: UserUpdate = {};
  if (typeof body.full_name === 'string') update.full_name = body.full_name;
  if (details) update.provider_details = pick<ProviderDetailsPatch>(details, PROVIDER_FIELD_NAMES);
  return update;
}

/** REQUIRED_FIELD per field a role of the new user needs (prescriber_number by prescriber type). */
function roleRequirementIssues(body: Record<string, unknown>): ValidationIssue[] {
  const roles = Array.isArray(body.access_roles) ? (body.access_roles as Role[]) : [];
  const neededBy = new Map<string, Role>();
  for (const { role, fields } of FIELDS_REQUIRED_BY_ROLE.filter((entry) => roles.includes(entry.role))) {
    for (const field of fields) if (!neededBy.has(field)) neededBy.set(field, role);
  }
  if (roles.includes('provider') && typeof body.prescriber_type === 'string') {
    for (const field of fieldsNeededByType(body.prescriber_type)) neededBy.set(field, 'provider');
  }
  return [...neededBy]
    .filter(([field]) => isMissing(body[field]))
    .map(([field, role]) => ({ field, message: `${field} is required for role ${role}`, code: 'REQUIRED_FIELD' }));
}

function emailIssues(email: unknown): ValidationIssue[] {
  if (typeof email !== 'string' || email === '' || isValidEmail(normaliseEmail(email))) return [];
  return [{ field: 'email', message: 'must be a valid e-mail address', code: 'VALIDATION_ERROR' }];
}

const NEW_USER_FIELDS = ['given_name', 'family_name', 'email', 'access_roles', ...PROVIDER_FIELD_NAMES.filter((n) => n !== 'given_name' && n !== 'family_name')];

export function readNewUser(submitted: SubmittedBody): NewUserRequest {
  const body = bodyFields(submitted);
  throwIfInvalid(submitted, [...roleRequirementIssues(body), ...emailIssues(body.email), ...checkProviderFormats(body as ProviderDetailsPatch, '')]);
  return pick<NewUserRequest>(body, NEW_USER_FIELDS);
}

export const ROLES_NOT_AN_ARRAY = 'access_roles must be a non-empty array of valid roles';

/** The roles body: anything that is not an array of at most 32 entries is a 400, as the vendor answers. */
export function readRequestedRoles(submitted: SubmittedBody): unknown[] {
  const body = submitted.value;
  if (submitted.issues.length > 0 || !isPlainObject(body) || !Array.isArray(body.access_roles)) {
    throw new ApiError('INVALID_USER_PARAMETERS', ROLES_NOT_AN_ARRAY);
  }
  return body.access_roles;
}
