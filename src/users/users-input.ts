// Reading the user routes' bodies, typed from their schemas: schema failures and the checks a
// schema cannot express (the prescriber-type dependency, calendar dates, e-mail format, fields
// a role requires) go out together as one 422. Both bodies are closed schemas: an unknown field
// is among those failures, named (users-schemas.ts says why).
import { isValidEmail, normaliseEmail } from '../identifiers/index.ts';
import { ApiError, type ValidationIssue } from '../platform/http/api-error.ts';
import { readBody, valueOrRefuse, type SubmittedBody } from '../platform/http/body-validation.ts';
import { checkPrescriberTypeRule, checkProviderFormats, fieldsNeededByType, PROVIDER_FIELD_NAMES, type ProviderDetailsPatch } from './provider-details.ts';
import { CreateUserBody, DETAILS_NAMES, UpdateUserBody, type DetailsName, type NewUserRequest, type UserUpdate } from './users-schemas.ts';

export type { NewUserRequest, UserUpdate };
import type { Role } from '../auth/index.ts';

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

/** The provider object of an update and the name it came under (either name; both is refused). */
function detailsOf(body: Record<string, unknown>): { name: DetailsName; details: ProviderDetailsPatch } | undefined {
  const name = DETAILS_NAMES.find((candidate) => isPlainObject(body[candidate]));
  return name ? { name, details: body[name] as ProviderDetailsPatch } : undefined;
}

function bothDetailsIssues(body: Record<string, unknown>): ValidationIssue[] {
  if (DETAILS_NAMES.some((name) => body[name] === undefined)) return [];
  return [{ field: 'prescriber_details', message: 'is another name for provider_details: send one of the two, not both', code: 'VALIDATION_ERROR' }];
}

export function readUserUpdate(submitted: SubmittedBody): UserUpdate {
  const read = readBody(UpdateUserBody, submitted, {
    errors: (body) => {
      const sent = detailsOf(body);
      const detailIssues = sent ? [...checkPrescriberTypeRule(sent.details, sent.name), ...checkProviderFormats(sent.details, `${sent.name}.`)] : [];
      return [...bothDetailsIssues(body), ...detailIssues];
    },
    value: (body) => {
      const update: UserUpdate = {};
      if (typeof body.full_name === 'string') update.full_name = body.full_name;
      const sent = detailsOf(body);
      if (sent) {
        update.provider_details = pick<ProviderDetailsPatch>(sent.details, PROVIDER_FIELD_NAMES);
        update.detailsName = sent.name;
      }
      return update;
    },
  });
  return valueOrRefuse(read);
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

const NEW_USER_FIELDS = ['given_name', 'family_name', 'email', 'access_roles', 'partner_user_id', ...PROVIDER_FIELD_NAMES.filter((n) => n !== 'given_name' && n !== 'family_name')];

export function readNewUser(submitted: SubmittedBody): NewUserRequest {
  const read = readBody(CreateUserBody, submitted, {
    errors: (body) => [...roleRequirementIssues(body), ...emailIssues(body.email), ...checkProviderFormats(body as ProviderDetailsPatch, '')],
    value: (body) => pick<NewUserRequest>(body, NEW_USER_FIELDS),
  });
  return valueOrRefuse(read);
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
