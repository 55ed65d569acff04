// Users: created by the operator CLI (any role) and through the API (assignable roles, with
// the provider verified by the HI Service), read one at a time, and listed per organization.
import type { Insertable, Kysely } from 'kysely';
import type { HiServicePort } from '../hi-service/index.ts';
import { isValidEmail, normaliseEmail } from '../identifiers/index.ts';
import { findOrganization } from '../onboarding/onboarding-store.ts';
import { OnboardingError } from '../onboarding/onboarding-service.ts';
import { notFound } from '../platform/api-error.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database, UsersTable } from '../platform/database-schema.ts';
import { newId } from '../platform/ids.ts';
import { canPrescribe } from './escript-readiness.ts';
import type { IdentityProvider } from './identity-provider.ts';
import { toProviderDetails, type ProviderDetails } from './provider-details.ts';
import { holdsAny, isRole, parseStoredRoles, PROVIDER_RECORD_ROLES, ROLES, type Role } from './user-roles.ts';
import {
  findProviderRecord,
  findUserByEmail,
  findUserOfOrganization,
  isUserOfOrganization,
  insertUser,
  listUserEmailsOfOrganization,
  type UserRow,
} from './users-store.ts';

export interface UsersContext {
  db: Kysely<Database>;
  clock: Clock;
  hiService: HiServicePort;
  identityProvider: IdentityProvider;
}

export const USER_NOT_FOUND = 'User not found';

/** The caller's organization as authentication read it for this request (the Principal has both). */
export interface CallerOrganization {
  organizationId: string;
  organizationHpio: string | null;
}

/** The path user, within the caller's organization; 404 otherwise (another organization's too). */
export async function requireUser(db: Kysely<Database>, organizationId: string, pathUserId: string): Promise<UserRow> {
  const user = await findUserOfOrganization(db, organizationId, pathUserId.toLowerCase());
  if (!user) throw notFound(USER_NOT_FOUND);
  return user;
}

/**
 * For routes acting under a path user (patients, prescriber drugs): that user must belong to the
 * token's organization, else 404. The token's own user was just checked by authentication, so
 * only another user costs a query.
 */
export async function requireOrganizationUser(
  db: Kysely<Database>,
  principal: { organizationId: string; userId: string },
  pathUserId: string,
): Promise<string> {
  const userId = pathUserId.toLowerCase();
  if (userId !== principal.userId && !(await isUserOfOrganization(db, principal.organizationId, userId))) {
    throw notFound(USER_NOT_FOUND);
  }
  return userId;
}

export function newUserRow(
  at: string,
  fields: { organizationId: string; email: string; givenName: string; familyName: string; roles: Role[] },
): Insertable<UsersTable> {
  return {
    id: newId(),
    organization_id: fields.organizationId,
    email: fields.email,
    given_name: fields.givenName,
    family_name: fields.familyName,
    full_name: `${fields.givenName} ${fields.familyName}`,
    roles: JSON.stringify(fields.roles),
    created_at: at,
    updated_at: at,
  };
}

export interface NewUser {
  organizationId: string;
  email: string;
  givenName: string;
  familyName: string;
  roles: string[];
}

const NAME_MAX = 100;

function checkName(label: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > NAME_MAX) throw new OnboardingError(`${label} must be 1 to ${NAME_MAX} characters`);
  return trimmed;
}

/** The operator's create (CLI and sandbox seed): any role, no provider record. */
export async function createUser(db: Kysely<Database>, clock: Clock, input: NewUser): Promise<{ user_id: string; email: string; roles: Role[] }> {
  const organizationId = input.organizationId.toLowerCase();
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email)) throw new OnboardingError(`not a valid e-mail address: ${input.email}`);
  const givenName = checkName('given name', input.givenName);
  const familyName = checkName('family name', input.familyName);
  const unknown = input.roles.filter((r) => !isRole(r));
  if (input.roles.length === 0 || unknown.length > 0) {
    throw new OnboardingError(`roles must be a non-empty list of ${ROLES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  }
  if (!(await findOrganization(db, organizationId))) throw new OnboardingError(`organization ${input.organizationId} not found`);
  if (await findUserByEmail(db, email)) throw new OnboardingError(`a user with e-mail ${email} already exists`);
  const roles = [...new Set(input.roles)] as Role[];
  const row = newUserRow(clock.now().toISOString(), { organizationId, email, givenName, familyName, roles });
  await insertUser(db, row);
  return { user_id: row.id, email, roles };
}

export interface UserView {
  user_id: string;
  email: string;
  full_name: string;
  access_roles: Role[];
  details: { given_name: string; family_name: string; title: string | null; date_of_birth: string | null; sex: string | null };
  provider_details?: ProviderDetails | null;
  is_escript_ready: { can_prescribe: boolean };
}

/** The single-user read: details from the provider record when there is one. */
export async function readUser(ctx: UsersContext, organization: CallerOrganization, pathUserId: string): Promise<UserView> {
  const { organizationId, organizationHpio } = organization;
  const user = await requireUser(ctx.db, organizationId, pathUserId);
  const record = await findProviderRecord(ctx.db, organizationId, user.id);
  const roles = parseStoredRoles(user.roles);
  const details = record
    ? { given_name: record.given_name, family_name: record.family_name, title: record.title, date_of_birth: record.date_of_birth, sex: record.sex }
    : { given_name: user.given_name, family_name: user.family_name, title: null, date_of_birth: null, sex: null };
  return {
    user_id: user.id,
    email: user.email,
    full_name: user.full_name,
    access_roles: roles,
    details,
    ...(holdsAny(roles, PROVIDER_RECORD_ROLES) ? { provider_details: record ? toProviderDetails(record) : null } : {}),
    is_escript_ready: { can_prescribe: canPrescribe({ enabled: user.enabled === 1, roles, record, organizationHpio }) },
  };
}

/** Every user of the organization (enabled or not), none of another; no pagination. */
export async function listUsers(ctx: UsersContext, organizationId: string): Promise<Array<{ user_id: string; email: string }>> {
  const rows = await listUserEmailsOfOrganization(ctx.db, organizationId);
  return rows.map((row) => ({ user_id: row.id, email: row.email }));
}
